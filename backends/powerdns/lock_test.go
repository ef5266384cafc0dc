package powerdns

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestLockStore runs the apply lock's store against a real PowerDNS: one
// holder at a time, entries of their own per run, a dead holder's
// expired entry taken over, and a zone that does not exist said so.
func TestLockStore(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "locked.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s, err := testDriver().LockStore(zoneStep(srv, "office1", zone).Zone, newRun(srv), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	a := lock.Holder{ID: "AAAA", Tenant: "office1", Host: "runner-a", PID: 1, Start: now, Command: "site apply", Expires: now.Add(time.Minute)}
	b := lock.Holder{ID: "BBBB", Tenant: "office1", Host: "runner-b", PID: 2, Start: now, Command: "site apply", Expires: now.Add(time.Minute)}

	if other, err := s.Try(ctx, a); err != nil || other != nil {
		t.Fatalf("Try on a free zone: holder %v, err %v", other, err)
	}
	other, err := s.Try(ctx, b)
	if err != nil || other == nil || other.Host != "runner-a" || other.State != lock.Held {
		t.Fatalf("Try while held: got %+v, %v; want runner-a as the holder", other, err)
	}
	if hs, _ := s.Holders(ctx); len(hs) != 1 || hs[0].ID != "AAAA" {
		t.Errorf("the refused run left an entry: %+v", hs)
	}

	// runner-a dies: once its lease has run out, b takes over and the
	// dead entry is gone.
	now = now.Add(2 * time.Minute)
	b.Expires = now.Add(time.Minute)
	if other, err := s.Try(ctx, b); err != nil || other != nil {
		t.Fatalf("Try after the holder's lease ran out: holder %v, err %v", other, err)
	}
	if hs, _ := s.Holders(ctx); len(hs) != 1 || hs[0].ID != "BBBB" || hs[0].State != lock.Held {
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
