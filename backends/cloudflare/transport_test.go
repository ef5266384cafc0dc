package cloudflare

import (
	"errors"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/model"
)

// TestAPIURLRules: the API URL (the spec's or SITE_CLOUDFLARE_API_URL)
// is checked before any request.
func TestAPIURLRules(t *testing.T) {
	tests := []struct {
		name      string
		apiURL    string
		env       string
		plaintext bool
		want      error // nil: accepted
	}{
		{name: "default public API"},
		{name: "https", apiURL: "https://cf.example.net/client/v4"},
		{name: "loopback http", apiURL: "http://127.0.0.1:9/client/v4"},
		{name: "http", apiURL: "http://cf.example.net/client/v4", want: endpoint.ErrPlaintext},
		{name: "http marked plaintext", apiURL: "http://cf.example.net/client/v4", plaintext: true},
		{name: "http from the environment", env: "http://cf.example.net/client/v4", want: endpoint.ErrPlaintext},
		{name: "userinfo", apiURL: "https://admin:hunter2@cf.example.net/client/v4", want: endpoint.ErrUserinfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			getenv := f.run.Getenv
			f.run.Getenv = func(k string) string {
				if k == EnvAPIURL {
					return tt.env
				}
				return getenv(k)
			}
			step := f.step()
			step.Zone.Provider.Cloudflare = &model.Cloudflare{Token: model.Credential{Env: "CLOUDFLARE_API_TOKEN"},
				APIURL: tt.apiURL, Plaintext: tt.plaintext}
			_, _, err := f.drv.client(step, f.run)
			switch {
			case tt.want == nil && err != nil:
				t.Errorf("got %v, want accepted", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Errorf("got %v, want %v", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "hunter2"):
				t.Errorf("got %q, which repeats the password", err)
			}
		})
	}
}
