package powerdns

import (
	"errors"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestClientURLRules: the provider URL is checked before the key is
// read or any request made.
func TestClientURLRules(t *testing.T) {
	tests := []struct {
		url       string
		plaintext bool
		want      error // nil: accepted
	}{
		{url: "http://127.0.0.1:8081"},
		{url: "https://pdns.example.net"},
		{url: "http://pdns.example.net:8081", want: endpoint.ErrPlaintext},
		{url: "http://pdns.example.net:8081", plaintext: true},
		{url: "https://admin:hunter2@pdns.example.net", want: endpoint.ErrUserinfo},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			step := zoneStep(&pdnstest.Server{}, "office1", "rules.test.")
			step.Zone.Provider.PowerDNS = &model.PowerDNS{URL: tt.url, Server: "localhost",
				APIKey: model.Credential{Env: keyEnv}, Plaintext: tt.plaintext}
			_, err := testDriver().newClient(step, newRun(&pdnstest.Server{APIKey: "k"}))
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
