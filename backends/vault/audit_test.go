package vault

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestEchoedTokenNeverReported: a store whose error answer quotes the
// X-Vault-Token it was sent (a proxy, a plugin, a future release) must
// not put that token in the step's reason, whether the token came from
// the environment or from an AppRole login.
func TestEchoedTokenNeverReported(t *testing.T) {
	tests := []struct {
		name    string
		approle bool
		status  int
	}{
		{"env token, 400", false, http.StatusBadRequest},
		{"env token, 500", false, http.StatusInternalServerError},
		{"AppRole login token, 400", true, http.StatusBadRequest},
		{"AppRole login token, 500", true, http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newVault(t)
			srv.AddRole("role-1", "s3cret-id")
			target, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			rp := httputil.NewSingleHostReverseProxy(target)
			var mu sync.Mutex
			var sent []string
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.Contains(r.URL.Path, "/data/") {
					rp.ServeHTTP(w, r)
					return
				}
				_, _ = io.Copy(io.Discard, r.Body)
				tok := r.Header.Get("X-Vault-Token")
				mu.Lock()
				sent = append(sent, tok)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_ = json.NewEncoder(w).Encode(map[string]any{"errors": []string{"token " + tok + " may not read this path"}})
			}))
			t.Cleanup(proxy.Close)

			step := secretStep(proxy.URL)
			env := map[string]string{"VAULT_TOKEN": testToken}
			if tt.approle {
				step.Secret.Store.Token = model.Credential{}
				step.Secret.Store.AppRole = &model.AppRole{RoleID: model.Credential{Env: "ROLE_ID"}, SecretID: model.Credential{Env: "SECRET_ID"}}
				env = map[string]string{"ROLE_ID": "role-1", "SECRET_ID": "s3cret-id"}
			}
			run := newRun(env)
			eng := &engine.Engine{DriverFor: func(*graph.Step) (backends.Driver, error) { return New(), nil }}
			obs, err := eng.Plan(context.Background(), &graph.Graph{Steps: []*graph.Step{step}}, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(obs.Plan.Blocked) != 1 {
				t.Fatalf("got %d blocked steps, want the secret step blocked", len(obs.Plan.Blocked))
			}
			reason := obs.Plan.Blocked[0].Reason
			if !strings.Contains(reason, "may not read this path") {
				t.Fatalf("the echoing answer did not reach the reason: %q", reason)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(sent) == 0 || sent[0] == "" {
				t.Fatalf("no token was sent to the store")
			}
			for _, tok := range sent {
				if strings.Contains(reason, tok) {
					t.Errorf("the reason carries the token the store was sent: %q", reason)
				}
			}
		})
	}
}
