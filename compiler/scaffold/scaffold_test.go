package scaffold

import (
	"strings"
	"testing"

	"github.com/site-tools/site/compiler"
)

// TestGenerateNewProject: with no operator's file, Generate returns a
// whole one declaring a provider of the kind asked for, and the tenant
// and it load together with no error; a PowerDNS zone gets a real SOA
// primary, a Cloudflare zone none.
func TestGenerateNewProject(t *testing.T) {
	tests := []struct {
		kind, provider, wantKind string
		want, notWant            string
	}{
		{"", "pdns", PowerDNS, `soa: primary: "ns1.acme.example.net."`, ""},
		{PowerDNS, "dns-1", PowerDNS, `soa: primary: "ns1.acme.example.net."`, ""},
		{Cloudflare, "cf", Cloudflare, `provider: "cf"`, "soa"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.provider, func(t *testing.T) {
			o := Options{Name: "acme", Domain: "Acme.Example.NET.", Provider: tt.provider, Kind: tt.kind}
			g, err := Generate(o, Operator{Path: compiler.ConfigName}, "tenants/acme.cue")
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind != tt.wantKind || !g.Declares || g.Granted {
				t.Errorf("got kind %q, declares %v, granted %v; want %q, true, false", g.Kind, g.Declares, g.Granted, tt.wantKind)
			}
			if !strings.HasPrefix(string(g.Site), "package site\n") || !strings.Contains(strings.ReplaceAll(string(g.Site), `"`, ""), "providers: "+tt.provider+": "+tt.wantKind+":") {
				t.Errorf("site.cue does not declare %s as %s:\n%s", tt.provider, tt.wantKind, g.Site)
			}
			if !strings.Contains(string(g.Tenant), tt.want) || tt.notWant != "" && strings.Contains(string(g.Tenant), tt.notWant) {
				t.Errorf("tenant file: want %q and no %q in\n%s", tt.want, tt.notWant, g.Tenant)
			}
			if _, err := compiler.LoadSource(compiler.ConfigName, g.Site, "acme.cue", g.Tenant); err != nil {
				t.Errorf("the scaffold does not load: %v", err)
			}
		})
	}
}

// TestGenerateRefuses: a kind other than the declared provider's, and
// an unknown kind.
func TestGenerateRefuses(t *testing.T) {
	op := Operator{Path: "site.cue", Exists: true, Src: []byte("package site\n\nproviders: pdns: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"K\"}\n")}
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Name: "acme", Domain: "acme.example", Provider: "pdns", Kind: Cloudflare}, "--provider-kind cloudflare: site.cue declares provider pdns as a powerdns provider already"},
		{Options{Name: "acme", Domain: "acme.example", Provider: "r53", Kind: "route53"}, `--provider-kind "route53": use powerdns or cloudflare`},
	}
	for _, tt := range tests {
		if _, err := Generate(tt.o, op, "acme.cue"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.o, err, tt.want)
		}
	}
}
