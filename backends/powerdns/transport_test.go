package powerdns

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestRedirectKeepsKeyAndBody: the API URL is a loopback front that
// passes requests to a real PowerDNS but answers 307 to a second
// loopback server (another host:port) for the chosen ones. Neither the
// API key nor the PATCH body may reach the second server.
func TestRedirectKeepsKeyAndBody(t *testing.T) {
	srv := pdnstest.Shared(t)
	tests := []struct {
		name     string
		redirect func(*http.Request) bool
		zone     string
	}{
		{"observe", func(*http.Request) bool { return true }, "redirect-observe.test."},
		{"apply", func(r *http.Request) bool { return r.Method == http.MethodPatch }, "redirect-apply.test."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.CreateZone(t, tt.zone)
			var mu sync.Mutex
			var stolen []string // what reached the second server
			second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				stolen = append(stolen, r.Method+" key="+r.Header.Get("X-API-Key")+" body="+string(body))
				mu.Unlock()
			}))
			defer second.Close()
			target, _ := url.Parse(srv.URL)
			proxy := httputil.NewSingleHostReverseProxy(target)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.redirect(r) {
					http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			defer front.Close()

			step := zoneStep(srv, "office1", tt.zone, rr("www."+tt.zone, "A", 300, "192.0.2.10"))
			step.Zone.Provider.PowerDNS.URL = front.URL
			d, run := testDriver(), newRun(srv)
			sp, err := d.Plan(context.Background(), step, run)
			if err == nil {
				_, err = d.Apply(context.Background(), sp, run)
			}
			var re *endpoint.RedirectError
			if !errors.As(err, &re) {
				t.Errorf("got %v, want the redirect refused", err)
			}
			var ae *APIError
			if errors.As(err, &ae) && ae.Class != backends.ClassInvalid {
				t.Errorf("got class %s, want %s: a refused redirect is not worth a retry", ae.Class, backends.ClassInvalid)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stolen) != 0 {
				t.Errorf("the second server got %q, want nothing", stolen)
			}
		})
	}
}

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
