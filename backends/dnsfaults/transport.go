package dnsfaults

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
)

// transport: the API URL is a loopback front that passes requests to
// the test server but answers 307 to a second loopback server (another
// host:port) for the chosen ones. Neither the secret nor a write's body
// may reach the second server; net/http alone keeps the Authorization
// header when only the port differs. (Was TestRedirectKeepsTokenAndBody
// in cloudflare, TestRedirectKeepsKeyAndBody in powerdns.)
func transport(t *testing.T, p Provider) {
	tests := []struct {
		name     string
		redirect func(*http.Request) bool
	}{
		{"redirect on observe", func(*http.Request) bool { return true }},
		{"redirect on apply", p.IsWrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := p.NewZone(t)
			var mu sync.Mutex
			var stolen []string // what reached the second server
			second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				stolen = append(stolen, r.Method+" headers="+headerText(r.Header)+" body="+string(body))
				mu.Unlock()
			}))
			defer second.Close()
			api, _ := front(t, z.API(), func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
				if tt.redirect(r) {
					http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				origin.ServeHTTP(w, r)
			})
			sp, err := z.Plan(context.Background(), api, rr("www."+z.Name(), "A", 300, "192.0.2.10"))
			if err == nil {
				_, err = z.Apply(context.Background(), sp)
			}
			var re *endpoint.RedirectError
			if !errors.As(err, &re) {
				t.Errorf("got %v, want the redirect refused", err)
			}
			if p.Class != nil {
				if c, ok := p.Class(err); ok && c != backends.ClassInvalid {
					t.Errorf("got class %s, want %s: a refused redirect is not worth a retry", c, backends.ClassInvalid)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stolen) != 0 {
				t.Errorf("the second server got %q, want nothing", stolen)
			}
		})
	}
}

// headerText is h's headers that may carry a secret.
func headerText(h http.Header) string {
	return "Authorization=" + h.Get("Authorization") + " X-API-Key=" + h.Get("X-API-Key")
}
