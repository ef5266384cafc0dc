package vault

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestNotVault404MovesOn: a first address that answers 404 but is not a
// Vault (a web server, a captive portal) is passed over like one that
// does not answer, and the read says so: a 404 means "no such secret"
// only in Vault's own JSON.
func TestNotVault404MovesOn(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"html page", "text/html; charset=utf-8", "<html><body>Not Found</body></html>"},
		{"empty body", "", ""},
		{"plain text", "text/plain", "404 page not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(web.Close)
			srv := newVault(t)
			step := secretStep(web.URL, srv.URL)
			run := newRun(map[string]string{"VAULT_TOKEN": testToken})
			sp, err := New().Plan(context.Background(), step, run)
			if err != nil {
				t.Fatalf("got %v, want the second address read", err)
			}
			if got := readSecret(t, run, step); got != testValue {
				t.Errorf("the secret was not read from the second address")
			}
			res, err := New().Apply(context.Background(), sp, run)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), "not a Vault") {
				t.Errorf("notes %q do not say the first address is not a Vault", res.Notes)
			}
		})
	}
}
