package endpoint

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestCheckRedirect(t *testing.T) {
	tests := []struct {
		from, to string
		ok       bool
	}{
		{"https://vault.example.net/v1/a", "https://vault.example.net/v1/b", true},
		{"https://vault.example.net/v1/a", "https://VAULT.example.net:443/v1/b", true},
		{"http://127.0.0.1:8081/a", "http://127.0.0.1:8081/b", true},
		{"https://vault.example.net/v1/a", "http://vault.example.net/v1/a", false},
		{"http://vault.example.net/v1/a", "https://vault.example.net/v1/a", false},
		{"https://vault.example.net/v1/a", "https://vault.example.net:8200/v1/a", false},
		{"https://vault.example.net/v1/a", "https://other.example.net/v1/a", false},
		{"https://vault.example.net/v1/a", "https://sub.vault.example.net/v1/a", false},
		{"http://127.0.0.1:8081/a", "http://127.0.0.1:8082/a", false},
		{"https://vault.example.net/v1/a", "https://u:p@vault.example.net/v1/a", false},
	}
	for _, tt := range tests {
		t.Run(tt.from+" to "+tt.to, func(t *testing.T) {
			err := CheckRedirect(request(t, tt.to), []*http.Request{request(t, tt.from)})
			var re *RedirectError
			switch {
			case tt.ok && err != nil:
				t.Errorf("got %v, want the redirect followed", err)
			case !tt.ok && !errors.As(err, &re):
				t.Errorf("got %v, want a *RedirectError", err)
			case !tt.ok && strings.Contains(err.Error(), "/v1/"):
				t.Errorf("got %q, want only scheme://host:port named", err)
			}
		})
	}
}

// TestCheckRedirectComparesWithFirst: a chain that comes back to the
// first host after a hop elsewhere never made that hop.
func TestCheckRedirectComparesWithFirst(t *testing.T) {
	via := []*http.Request{request(t, "https://a.example.net/x"), request(t, "https://a.example.net/y")}
	if err := CheckRedirect(request(t, "https://b.example.net/z"), via); err == nil {
		t.Errorf("got the second hop to another host followed, want refused")
	}
}

// TestClientKeepsKeyOnTheFirstServer is the rule at work: a loopback
// server answers 307 to a second one on another port (another
// host:port); the key and the body must never reach the second.
func TestClientKeepsKeyOnTheFirstServer(t *testing.T) {
	var reached atomic.Int32
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	}))
	defer second.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()

	req, err := http.NewRequest(http.MethodPatch, first.URL+"/api/v1/zones/x", strings.NewReader(`{"rrsets":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", "the-key")
	resp, err := Client(nil).Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Errorf("got %v, want a *RedirectError", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the second server got %d requests, want none", n)
	}
}

func request(t *testing.T, raw string) *http.Request {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
}
