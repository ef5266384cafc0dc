package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// lockFixture creates zone and returns its lock store, whose clock
// reads *now (moved by the test), and two runs' holders with a lease of
// a minute from then.
func lockFixture(t *testing.T, srv *pdnstest.Server, zone string) (s *LockStore, now *time.Time, a, b lock.Holder) {
	t.Helper()
	srv.CreateZone(t, zone)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	st, err := testDriver().LockStore(zoneStep(srv, "office1", zone).Zone, newRun(srv), func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	a = lock.Holder{ID: "AAAAAAAAAAAAAAAA", Tenant: "office1", Host: "runner-a", PID: 1, Start: at, Command: "site apply", Expires: at.Add(time.Minute)}
	b = lock.Holder{ID: "BBBBBBBBBBBBBBBB", Tenant: "office1", Host: "runner-b", PID: 2, Start: at, Command: "site apply", Expires: at.Add(time.Minute)}
	return st.(*LockStore), &at, a, b
}

// TestLockStore runs the apply lock's store against a real PowerDNS: one
// holder at a time, entries of their own per run, a dead holder's
// expired entry taken over, and a zone that does not exist said so.
func TestLockStore(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "locked.example.test."
	ctx := context.Background()
	s, now, a, b := lockFixture(t, srv, zone)

	if other, err := s.Try(ctx, a); err != nil || other != nil {
		t.Fatalf("Try on a free zone: holder %v, err %v", other, err)
	}
	other, err := s.Try(ctx, b)
	if err != nil || other == nil || other.Host != "runner-a" || other.State != lock.Held {
		t.Fatalf("Try while held: got %+v, %v; want runner-a as the holder", other, err)
	}
	if hs, _ := s.Holders(ctx); len(hs) != 1 || hs[0].ID != "AAAAAAAAAAAAAAAA" {
		t.Errorf("the refused run left an entry: %+v", hs)
	}

	// runner-a dies: once its lease has run out, b takes over and the
	// dead entry is gone.
	*now = now.Add(2 * time.Minute)
	b.Expires = now.Add(time.Minute)
	var dead []string
	watched := lock.WatchTakeovers(ctx, func(h lock.Holder) { dead = append(dead, h.ID) })
	if other, err := s.Try(watched, b); err != nil || other != nil {
		t.Fatalf("Try after the holder's lease ran out: holder %v, err %v", other, err)
	}
	if len(dead) != 1 || dead[0] != "AAAAAAAAAAAAAAAA" {
		t.Errorf("the take-over reported %q, want AAAA", dead)
	}
	if hs, _ := s.Holders(ctx); len(hs) != 1 || hs[0].ID != "BBBBBBBBBBBBBBBB" || hs[0].State != lock.Held {
		t.Errorf("after take-over the zone holds %+v, want only BBBB held", hs)
	}
	if err := s.Release(ctx, b); err != nil {
		t.Fatal(err)
	}
	if hs, _ := s.Holders(ctx); len(hs) != 0 {
		t.Errorf("after Release the zone holds %+v", hs)
	}

	missing, err := testDriver().LockStore(zoneStep(srv, "office1", "nowhere.example.test.").Zone, newRun(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := missing.Holders(ctx); !errors.Is(err, ErrNoZone) {
		t.Errorf("Holders of a missing zone: %v, want ErrNoZone", err)
	}
}

// TestLockReadOfAbsentZoneSparesItsRead: site apply reads each zone's
// lock entries before it observes the zones. A zone whose lock read
// found no zone is observed from the server's zone list alone (one per
// server per run), not read again; one created since that read (as
// while this run waited for the lock) is in the observation's own list,
// made after the lock reads, and read as usual.
func TestLockReadOfAbsentZoneSparesItsRead(t *testing.T) {
	srv := pdnstest.Shared(t)
	const absent, createdSince = "lockread-absent.test.", "lockread-since.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+absent, nil) })
	d, run := testDriver(), newRun(srv)
	for _, zone := range []string{absent, createdSince} {
		s, err := d.LockStore(zoneStep(srv, "office1", zone).Zone, run, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Holders(context.Background()); !errors.Is(err, ErrNoZone) {
			t.Fatalf("lock read of %s: got %v, want ErrNoZone", zone, err)
		}
	}
	srv.CreateZone(t, createdSince)
	for _, z := range []string{absent, createdSince, ""} {
		srv.ResetRequests(z)
	}

	sp := mustPlan(t, d, zoneStep(srv, "office1", absent, rr("www."+absent, "A", 300, "192.0.2.1")), run)
	if len(sp.Changes) == 0 || sp.Changes[0].Key != "dns/"+absent {
		t.Fatalf("got %q, want the zone created first", summary(sp.Changes))
	}
	if got := srv.Requests(absent).GET; got != 0 {
		t.Errorf("observing %s after its lock read found no zone made %d GETs, want 0", absent, got)
	}
	since := mustPlan(t, d, zoneStep(srv, "office1", createdSince), run)
	if len(since.Changes) != 0 || srv.Requests(createdSince).GET != 1 {
		t.Errorf("a zone created after its lock read: planned %q with %d GETs, want it read (1 GET) and nothing to create",
			summary(since.Changes), srv.Requests(createdSince).GET)
	}
	if got := srv.Requests("").GET; got != 1 {
		t.Errorf("got %d zone lists, want 1 for the run", got)
	}

	// Applying creates the zone, and its observation after the apply is
	// the POST's answer, not the lock read's "no zone".
	res := mustApply(t, d, sp, run)
	if again := mustPlan(t, d, sp.Step, run); len(again.Changes) != 0 {
		t.Errorf("after the create observed %q, want converged (reads %d)", summary(again.Changes), res.Reads)
	}
}

// TestLockStoreTryHeld: a zone after the tenant's first store is taken
// in one step (two requests, not four): free, it holds; held by another
// run, that run is reported and nothing of this one is left; a dead
// holder's expired entry is taken over.
func TestLockStoreTryHeld(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "tryheld.example.test."
	ctx := context.Background()
	store, now, a, b := lockFixture(t, srv, zone)

	srv.ResetRequests(zone + pdnstest.MetadataSuffix)
	if other, err := store.TryHeld(ctx, a); err != nil || other != nil {
		t.Fatalf("TryHeld on a free zone: holder %v, err %v", other, err)
	}
	if c := srv.Requests(zone + pdnstest.MetadataSuffix); c.PUT != 1 || c.GET != 1 || c.DELETE != 0 {
		t.Errorf("TryHeld made %+v, want one PUT and one GET", c)
	}
	other, err := store.TryHeld(ctx, b)
	if err != nil || other == nil || other.ID != "AAAAAAAAAAAAAAAA" || other.State != lock.Held {
		t.Fatalf("TryHeld while held: got %+v, %v; want AAAA as the holder", other, err)
	}
	if hs, _ := store.Holders(ctx); len(hs) != 1 || hs[0].ID != "AAAAAAAAAAAAAAAA" || hs[0].State != lock.Held {
		t.Errorf("after the refused TryHeld the zone holds %+v, want only AAAA held", hs)
	}
	*now = now.Add(2 * time.Minute)
	b.Expires = now.Add(time.Minute)
	if other, err := store.TryHeld(ctx, b); err != nil || other != nil {
		t.Fatalf("TryHeld after the holder's lease ran out: holder %v, err %v", other, err)
	}
	if hs, _ := store.Holders(ctx); len(hs) != 1 || hs[0].ID != "BBBBBBBBBBBBBBBB" {
		t.Errorf("after take-over the zone holds %+v, want only BBBB", hs)
	}
	if err := store.Release(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// TestLockStoreRacesNeverBothHold: two runs take the same zone at the
// same moment, in one step or through the claim round, many times on a
// real PowerDNS; at most one of them holds each time.
func TestLockStoreRacesNeverBothHold(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "race.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	now := time.Now()
	newStore := func() *LockStore {
		s, err := testDriver().LockStore(zoneStep(srv, "office1", zone).Zone, newRun(srv), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.(*LockStore)
	}
	type take func(*LockStore, lock.Holder) (*lock.Holder, error)
	oneStep := func(s *LockStore, h lock.Holder) (*lock.Holder, error) { return s.TryHeld(ctx, h) }
	claimRound := func(s *LockStore, h lock.Holder) (*lock.Holder, error) { return s.Try(ctx, h) }
	for _, pair := range []struct {
		name string
		a, b take
	}{{"one step against one step", oneStep, oneStep}, {"one step against the claim round", oneStep, claimRound}} {
		both := 0
		for i := range 40 {
			a := lock.Holder{ID: fmt.Sprintf("A%015d", i), Tenant: "office1", Start: now, Expires: now.Add(time.Minute)}
			b := lock.Holder{ID: fmt.Sprintf("B%015d", i), Tenant: "office1", Start: now, Expires: now.Add(time.Minute)}
			sa, sb := newStore(), newStore()
			var wg sync.WaitGroup
			var oa, ob *lock.Holder
			var ea, eb error
			start := make(chan struct{})
			wg.Add(2)
			go func() { defer wg.Done(); <-start; oa, ea = pair.a(sa, a) }()
			go func() { defer wg.Done(); <-start; ob, eb = pair.b(sb, b) }()
			close(start)
			wg.Wait()
			if ea != nil || eb != nil {
				t.Fatalf("%s: %v, %v", pair.name, ea, eb)
			}
			if oa == nil && ob == nil {
				both++
			}
			for _, h := range []lock.Holder{a, b} {
				if err := sa.Release(ctx, h); err != nil {
					t.Fatal(err)
				}
			}
		}
		if both > 0 {
			t.Errorf("%s: both runs held the zone %d times of 40", pair.name, both)
		}
	}
}

// TestTenantLockStore: the operator's lock zone holds every tenant's
// lock, each tenant's entries apart (site.cue locks: powerdns); an
// entry that is not one site writes (an id of another form, a kind not
// its own) is an error that quotes none of it.
func TestTenantLockStore(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "locks.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	zs := zoneStep(srv, "office1", "other.example.test.").Zone
	store := func(tenant string) lock.Store {
		s, err := testDriver().TenantLockStore(zs.Provider, zone, tenant, newRun(srv), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	office1, shop := store("office1"), store("shop")
	now := time.Now()
	a := lock.Holder{ID: "AAAAAAAAAAAAAAAA", Tenant: "office1", Host: "runner-a", Start: now, Expires: now.Add(time.Minute)}
	b := lock.Holder{ID: "BBBBBBBBBBBBBBBB", Tenant: "shop", Host: "runner-b", Start: now, Expires: now.Add(time.Minute)}
	c := lock.Holder{ID: "CCCCCCCCCCCCCCCC", Tenant: "office1", Host: "runner-c", Start: now, Expires: now.Add(time.Minute)}
	if other, err := office1.Try(ctx, a); err != nil || other != nil {
		t.Fatalf("office1's first run: %v %v", other, err)
	}
	if other, err := shop.Try(ctx, b); err != nil || other != nil {
		t.Fatalf("shop's run beside office1's: %v %v, want the lock (another tenant's)", other, err)
	}
	if other, err := office1.Try(ctx, c); err != nil || other == nil || other.ID != a.ID {
		t.Fatalf("office1's second run: %v %v, want refused by the first", other, err)
	}
	if hs, err := office1.Holders(ctx); err != nil || len(hs) != 1 || hs[0].ID != a.ID {
		t.Errorf("office1's holders %v %v, want only its own", hs, err)
	}
	for _, kind := range []string{LockKindPrefix + "..%2F..", LockKindPrefix + "DDDDDDDDDDDDDDDD"} {
		forged := lock.Holder{ID: "H\n::error::x", Tenant: "office1"}
		if kind != LockKindPrefix+"..%2F.." {
			forged.ID = "EEEEEEEEEEEEEEEE" // a kind not its own
		}
		b, _ := json.Marshal(forged)
		body, _ := json.Marshal(map[string]any{"metadata": []string{string(b)}})
		if code, out, err := srv.Do(ctx, "PUT", "/zones/"+zone+"/metadata/"+kind, body); err != nil || code != 200 {
			t.Fatalf("PUT %s: %d %v %s", kind, code, err, out)
		}
		_, err := office1.Holders(ctx)
		if err == nil || !strings.Contains(err.Error(), "is not a site lock entry") || strings.Contains(err.Error(), "::error::") || strings.Contains(err.Error(), "EEEE") {
			t.Errorf("holders beside %s: %v, want \"not a site lock entry\" quoting nothing of it", kind, err)
		}
		_, _, _ = srv.Do(ctx, "DELETE", "/zones/"+zone+"/metadata/"+kind, nil)
	}
}
