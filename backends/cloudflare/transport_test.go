package cloudflare

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

	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/model"
)

// TestRedirectKeepsTokenAndBody: the API URL is a loopback front that
// passes requests to the fake but answers 307 to a second loopback
// server (another host:port) for the chosen ones. Neither the token
// nor a batch body may reach the second server; net/http alone keeps
// the Authorization header when only the port differs.
func TestRedirectKeepsTokenAndBody(t *testing.T) {
	tests := []struct {
		name     string
		redirect func(*http.Request) bool
	}{
		{"observe", func(*http.Request) bool { return true }},
		{"apply", func(r *http.Request) bool { return r.Method != http.MethodGet }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var mu sync.Mutex
			var stolen []string // what reached the second server
			second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				stolen = append(stolen, r.Method+" auth="+r.Header.Get("Authorization")+" body="+string(body))
				mu.Unlock()
			}))
			defer second.Close()
			target, err := url.Parse(f.fake.URL)
			if err != nil {
				t.Fatal(err)
			}
			proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.redirect(r) {
					http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			defer front.Close()

			step := f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"))
			step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
			sp, err := f.drv.Plan(context.Background(), step, f.run)
			if err == nil {
				_, err = f.drv.Apply(context.Background(), sp, f.run)
			}
			var re *endpoint.RedirectError
			if !errors.As(err, &re) {
				t.Errorf("got %v, want the redirect refused", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stolen) != 0 {
				t.Errorf("the second server got %q, want nothing", stolen)
			}
		})
	}
}

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
