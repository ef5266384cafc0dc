package vault

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/model"
)

// heldRun is a run that hears at once of every request in flight
// (backends.Run.Slow), on slow.
func heldRun(env map[string]string) (*backends.Run, chan backends.Awaited) {
	slow := make(chan backends.Awaited, 16)
	run := newRun(env)
	run.SlowAfter = time.Nanosecond
	run.Slow = func(a backends.Awaited, _ time.Duration) {
		select {
		case slow <- a:
		default:
		}
	}
	return run, slow
}

// holdOnce serves h, but holds the first request whose method and path
// are want until the test has heard of it: the front stands for a
// Vault that stopped answering (a real dev server cannot be made to).
func holdOnce(t *testing.T, h http.Handler, want string) (url string, release func()) {
	held := make(chan struct{})
	var once, released sync.Once
	release = func() { released.Do(func() { close(held) }) }
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method+" "+r.URL.Path == want {
			once.Do(func() { <-held })
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	t.Cleanup(release) // before Close, which waits for the held request
	return front.URL, release
}

// TestSlowStoreIsNamed: a read of a secret, of a lock and a write of a
// lock that the store holds are each named to the run, with the store's
// name and address and the request's path, and never the token.
// Before, nothing named them: a run stuck on a store could not say so.
func TestSlowStoreIsNamed(t *testing.T) {
	srv := newVault(t)
	env := map[string]string{"VAULT_TOKEN": testToken}
	lockStore := func(addr string, run *backends.Run) (lock.Store, error) {
		store := &model.Vault{Name: "bao", Addrs: []string{addr}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
		return New().LockStore(context.Background(), store, "office1", run, nil)
	}
	for _, c := range []struct {
		name, held string
		do         func(addr string, run *backends.Run) error
	}{
		{"secret", "GET /v1/secret/data/dns/cloudflare", func(addr string, run *backends.Run) error {
			_, err := New().Plan(context.Background(), secretStep(addr), run)
			return err
		}},
		{"lock read", "GET /v1/secret/data/site-locks/office1", func(addr string, run *backends.Run) error {
			s, err := lockStore(addr, run)
			if err == nil {
				_, err = s.Holders(context.Background())
			}
			return err
		}},
		{"lock write", "PUT /v1/secret/data/site-locks/office1", func(addr string, run *backends.Run) error {
			s, err := lockStore(addr, run)
			if err == nil {
				_, err = s.Try(context.Background(), holder("A", time.Now().Add(time.Minute)))
			}
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, release := holdOnce(t, srv.Handler(), c.held)
			run, slow := heldRun(env)
			done := make(chan error, 1)
			go func() { done <- c.do(addr, run) }()
			server, request := "Vault bao ("+addr+")", strings.Replace(c.held, "/v1/", "", 1)
		heard:
			for {
				select {
				case a := <-slow:
					if strings.Contains(a.Server+a.Request, testToken) {
						t.Fatalf("Slow heard of %+v, which carries the token", a)
					}
					if a.Server == server && a.Request == request {
						break heard
					}
				case err := <-done:
					t.Fatalf("ended (%v) before the run heard of %s to %s", err, request, server)
				}
			}
			release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := run.Awaiting(); len(got) != 0 {
				t.Errorf("Awaiting() = %+v after the answers, want none", got)
			}
		})
	}
}
