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
