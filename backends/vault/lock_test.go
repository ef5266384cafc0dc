package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// lockFor is tenant office1's lock store in the Vault at addrs, as one
// run (its own Driver) builds it, with the clock now.
func lockFor(t *testing.T, now func() time.Time, addrs ...string) *LockStore {
	t.Helper()
	store := &model.Vault{Name: "bao", Addrs: addrs, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	s, err := New().LockStore(context.Background(), store, "office1", newRun(map[string]string{"VAULT_TOKEN": testToken}), now)
	if err != nil {
		t.Fatalf("LockStore: %v", err)
	}
	return s.(*LockStore)
}

// tok is the holder id of the run a test calls name: an opaque token of
// 16 hex digits, the only ids a store accepts.
func tok(name string) string { return fmt.Sprintf("%016X", []byte(name)) }

func holder(id string, expires time.Time) lock.Holder {
	return lock.Holder{ID: tok(id), Tenant: "office1", Host: "runner-" + id, PID: 42, Start: expires.Add(-time.Minute),
		Command: "site apply tenants/office1.cue", Expires: expires}
}

// TestVaultLockConcurrentClaims lets eight runs claim a free lock at
// once: exactly one holds it, and every other one is told that one.
func TestVaultLockConcurrentClaims(t *testing.T) {
	srv := newVault(t)
	t0 := time.Now()
	now := func() time.Time { return t0 }
	const n = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	others := make([]*lock.Holder, n)
	errs := make([]error, n)
	for i := range n {
		s := lockFor(t, now, srv.URL)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			others[i], errs[i] = s.Try(context.Background(), holder(string(rune('A'+i)), t0.Add(time.Minute)))
		}()
	}
	close(start)
	wg.Wait()
	winner := ""
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("run %c: %v", 'A'+i, errs[i])
		}
		if others[i] == nil {
			if winner != "" {
				t.Fatalf("runs %s and %c both hold the lock", winner, 'A'+i)
			}
			winner = string(rune('A' + i))
		}
	}
	if winner == "" {
		t.Fatal("no run holds the lock")
	}
	for i := range n {
		if others[i] != nil && others[i].ID != tok(winner) {
			t.Errorf("run %c was told %s holds the lock, want %s", 'A'+i, others[i].ID, winner)
		}
	}
	hs, err := lockFor(t, now, srv.URL).Holders(context.Background())
	if err != nil || len(hs) != 1 || hs[0].ID != tok(winner) || hs[0].State != lock.Held || hs[0].Host != "runner-"+winner || hs[0].PID != 42 {
		t.Errorf("Holders = %+v, %v; want only %s, held, with its host and pid", hs, err, winner)
	}
}

// TestVaultLockLostRace is the race of two claims step by step: A reads
// the free lock, B takes it, and A's write over the version it read is
// refused by check-and-set, so A's Try names B.
func TestVaultLockLostRace(t *testing.T) {
	srv := newVault(t)
	t0 := time.Now()
	now := func() time.Time { return t0 }
	a, b := lockFor(t, now, srv.URL), lockFor(t, now, srv.URL)
	ctx := context.Background()
	cur, v, err := a.get(ctx)
	if err != nil || cur != nil || v != 0 {
		t.Fatalf("A reads the free lock: %+v v%d %v", cur, v, err)
	}
	if other, err := b.Try(ctx, holder("B", t0.Add(time.Minute))); other != nil || err != nil {
		t.Fatalf("B's Try: %+v %v, want the lock", other, err)
	}
	data, _ := holderData(holder("A", t0.Add(time.Minute)))
	if err := a.put(ctx, data, v); !errors.Is(err, errCAS) {
		t.Fatalf("A's write over version %d after B's: %v, want the check-and-set refusal", v, err)
	}
	if other, err := a.Try(ctx, holder("A", t0.Add(time.Minute))); err != nil || other == nil || other.ID != tok("B") {
		t.Errorf("A's Try: %+v %v, want B named", other, err)
	}
}

// TestVaultLockExpiredTakenOver: a live lease keeps others out; once it
// has run out another run takes the lock over, and the old holder can
// neither renew nor release it.
func TestVaultLockExpiredTakenOver(t *testing.T) {
	srv := newVault(t)
	t0 := time.Now()
	clock := t0
	now := func() time.Time { return clock }
	a, b := lockFor(t, now, srv.URL), lockFor(t, now, srv.URL)
	ctx := context.Background()
	ha := holder("A", t0.Add(time.Minute))
	if other, err := a.Try(ctx, ha); other != nil || err != nil {
		t.Fatalf("A's Try: %+v %v", other, err)
	}
	clock = t0.Add(30 * time.Second)
	if other, err := b.Try(ctx, holder("B", clock.Add(time.Minute))); err != nil || other == nil || other.ID != tok("A") {
		t.Fatalf("B's Try under A's live lease: %+v %v, want A named", other, err)
	}
	clock = t0.Add(2 * time.Minute) // A died: its lease ran out
	var dead []string
	watched := lock.WatchTakeovers(ctx, func(h lock.Holder) { dead = append(dead, h.ID) })
	if other, err := b.Try(watched, holder("B", clock.Add(time.Minute))); other != nil || err != nil {
		t.Fatalf("B's Try over A's expired lease: %+v %v, want the lock", other, err)
	}
	if len(dead) != 1 || dead[0] != tok("A") {
		t.Errorf("the take-over reported %q, want A", dead)
	}
	ha.Expires = clock.Add(time.Minute)
	if err := a.Renew(ctx, ha); err == nil || !strings.Contains(err.Error(), "taken over by host runner-B") {
		t.Errorf("A's Renew after the take-over: %v, want taken over by B", err)
	}
	if err := a.Release(ctx, ha); err != nil {
		t.Errorf("A's Release after the take-over: %v", err)
	}
	if hs, err := b.Holders(ctx); err != nil || len(hs) != 1 || hs[0].ID != tok("B") {
		t.Errorf("Holders = %+v %v, want B still holding", hs, err)
	}
}

// TestVaultLockRelease takes the lock through lock.Acquire, releases it,
// and another run then takes it at once; a run that was told of the
// holder before the release was refused.
func TestVaultLockRelease(t *testing.T) {
	srv := newVault(t)
	ctx := context.Background()
	t0 := time.Now()
	now := func() time.Time { return t0 }
	a, b := lockFor(t, now, srv.URL), lockFor(t, now, srv.URL)
	l, err := lock.Acquire(ctx, []lock.Store{a}, holder("A", time.Time{}), lock.Options{Now: now})
	if err != nil {
		t.Fatalf("A's Acquire: %v", err)
	}
	var he *lock.HeldError
	if _, err := lock.Acquire(ctx, []lock.Store{b}, holder("B", time.Time{}), lock.Options{Now: now}); !errors.As(err, &he) || he.Holder.ID != tok("A") {
		t.Fatalf("B's Acquire while A holds: %v, want A named", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("A's Release: %v", err)
	}
	if hs, err := b.Holders(ctx); err != nil || len(hs) != 0 {
		t.Fatalf("Holders after the release = %+v %v, want none", hs, err)
	}
	lb, err := lock.Acquire(ctx, []lock.Store{b}, holder("B", time.Time{}), lock.Options{Now: now})
	if err != nil {
		t.Fatalf("B's Acquire after the release: %v", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Fatalf("B's Release: %v", err)
	}
}

// TestVaultLockAddressWalk: the lock is kept at the first address that
// answers, as secrets are read; with none answering there is no store.
func TestVaultLockAddressWalk(t *testing.T) {
	srv := newVault(t)
	closed := closedAddr(t)
	s := lockFor(t, nil, closed, srv.URL)
	if s.addr != srv.URL || !strings.Contains(s.Where(), "vault bao at "+srv.URL+" (KV v2 secret/site-locks/office1)") {
		t.Errorf("Where = %q, want the srv's address", s.Where())
	}
	store := &model.Vault{Name: "bao", Addrs: []string{closed}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	_, err := New().LockStore(context.Background(), store, "office1", newRun(map[string]string{"VAULT_TOKEN": testToken}), nil)
	if err == nil || !strings.Contains(err.Error(), "no address of vault bao answered") || !strings.Contains(err.Error(), closed) {
		t.Errorf("LockStore with no answering address: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), testToken) {
		t.Errorf("the error shows the token: %v", err)
	}
}

// TestVaultLockSharesRunMemory: the address that answered the lock is
// the one the run's secret steps try first, so the address before it
// that did not answer is not dialled again (a fresh walk lists it as
// passed over).
func TestVaultLockSharesRunMemory(t *testing.T) {
	srv := newVault(t)
	closed := closedAddr(t)
	d := New()
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	step := secretStep(closed, srv.URL)
	if _, err := d.LockStore(context.Background(), step.Secret.Store, "office1", run, nil); err != nil {
		t.Fatalf("LockStore: %v", err)
	}
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	det := detailOf(t, sp)
	if det.Addr != srv.URL || len(det.Passed) != 0 {
		t.Errorf("read from %s passing over %q, want %s first and nothing passed over", det.Addr, det.Passed, srv.URL)
	}
}

// TestVaultLockReadOnlyToken: a token that may read the lock but not
// write it gets the store, and its Try says which grant is missing,
// without the token.
func TestVaultLockReadOnlyToken(t *testing.T) {
	srv := newVault(t)
	const reader = "reader-only-19e2"
	srv.AddReader(reader)
	store := &model.Vault{Name: "bao", Addrs: []string{srv.URL}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	s, err := New().LockStore(context.Background(), store, "office1", newRun(map[string]string{"VAULT_TOKEN": reader}), nil)
	if err != nil {
		t.Fatalf("LockStore: %v", err)
	}
	_, err = s.Try(context.Background(), holder("A", time.Now().Add(time.Minute)))
	want := hint.Hint{Kind: hint.GrantToken, Setting: "$VAULT_TOKEN", Spec: "read, create and update on secret/data/site-locks/*"}
	if err == nil || !strings.Contains(err.Error(), "HTTP 403: permission denied") || hint.Of(err) != want {
		t.Fatalf("Try with a read-only token: %v (hint %+v), want 403 naming the grant %+v", err, hint.Of(err), want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error spreads over lines: %q", err)
	}
	if strings.Contains(err.Error(), reader) {
		t.Errorf("the error shows the token: %v", err)
	}
}

// TestVaultLockRefusedSaysWhatToGrant: a token that may read the
// secrets but not the lock leaves the lock to other stores; the reason
// says the store refused (it did answer) and what to grant, where it
// said "no address answered".
func TestVaultLockRefusedSaysWhatToGrant(t *testing.T) {
	srv := newVault(t)
	const tok = "secrets-only-7a21"
	srv.AddToken(tok, "secrets-only", `path "secret/data/dns/*" { capabilities = ["read"] }`)
	store := &model.Vault{Name: "bao", Addrs: []string{srv.URL}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	_, err := New().LockStore(context.Background(), store, "office1", newRun(map[string]string{"VAULT_TOKEN": tok}), nil)
	want := "vault bao refused the apply lock:\n  tried " + srv.URL + ": HTTP 403: permission denied\n" +
		"  the token in $VAULT_TOKEN needs read, create and update on secret/data/site-locks/* for the lock to be kept in this store"
	if err == nil || err.Error() != want {
		t.Fatalf("LockStore with a token that may not read the lock: %v, want\n%s", err, want)
	}
}
