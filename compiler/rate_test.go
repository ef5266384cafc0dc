package compiler

import (
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// TestProviderRate: a provider's rate is read from site.cue; Cloudflare
// without one has its documented limit (its rules' Rate), PowerDNS none; a per that is no
// duration is an error naming its place.
func TestProviderRate(t *testing.T) {
	for _, tc := range []struct {
		name, provider string
		want           *model.Rate
		wantErr        string
	}{
		{"cloudflare default", `cloudflare: token: env: "T"`, &model.Rate{Requests: 1200, Per: 5 * time.Minute}, ""},
		{"powerdns none", `powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}`, nil, ""},
		{"declared", `powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}, rate: {requests: 20, per: "10s"}`,
			&model.Rate{Requests: 20, Per: 10 * time.Second}, ""},
		{"cloudflare declared", `cloudflare: token: env: "T"
		rate: {requests: 600, per: "5m"}`, &model.Rate{Requests: 600, Per: 5 * time.Minute}, ""},
		{"bad per", `cloudflare: token: env: "T"
		rate: {requests: 600, per: "5 minutes"}`, nil, `per "5 minutes" is not a duration`},
		{"no requests", `cloudflare: token: env: "T"
		rate: {requests: 0, per: "5m"}`, nil, "rate.requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package site\nproviders: p: {\n" + tc.provider + "\n}\ntenants: a: {domains: [\"a.test\"], providers: [\"p\"]}\n"
			op, diags := operatorSource("site.cue", []byte(src))
			if tc.wantErr != "" {
				if !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error about %q", diags, tc.wantErr)
				}
				return
			}
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			got := op.providers["p"].Rate
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("got rate %v, want %v", got, tc.want)
			}
		})
	}
}
