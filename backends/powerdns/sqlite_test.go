package powerdns

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/lock/locktest"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
)

// TestParallelApplyOnSQLite applies many small zones with the engine's
// default parallelism to a server on the gsqlite3 backend, the one small
// sites use: concurrent writes there fail with HTTP 500 "database is
// locked" (apis.md), so the driver must serialise its writes to one
// server and wait out a lock that a concurrent read still causes.
func TestParallelApplyOnSQLite(t *testing.T) {
	// The production defaults: the driver as site builds it per run.
	applyMix(t, pdnstest.New(t, pdnstest.Options{}), 200, 0)
}

// TestDatabaseLockedIsRetried: a write that still meets a lock (another
// client's write, or a read holding the database) is tried again after
// a jittered backoff rather than failing the step: SQLite aborted the
// transaction, so repeating the PATCH is safe.
func TestDatabaseLockedIsRetried(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "locked.test."
	srv.CreateZone(t, zone)
	var patches atomic.Int32
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		// 4.7.3 says only "Internal Server Error"; later servers may
		// name the cause. Either way it is a 500.
		return 500, `{"error": "database is locked"}`, r.Method == "PATCH" && patches.Add(1) <= 2
	})
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1")), run)
	mustApply(t, d, sp, run)
	if got := srv.Requests(zone).PATCH; got != 3 {
		t.Errorf("got %d PATCHes, want 3: two locked, then the write", got)
	}
	if got := srv.Query(t, "www."+zone, "A"); !equalStrings(got, []string{"300 192.0.2.1"}) {
		t.Errorf("got %q, want the record served", got)
	}
}

// TestParallelCreatesOnSQLite: zone creations (POSTs) go to a gsqlite3
// server together, which SQLite takes (they wait their turn, where a
// PATCH fails at once), and no PATCH is ever sent beside a POST. With
// the engine's default parallelism every step applies without a
// problem, when all zones are new and when some exist (PATCHed).
func TestParallelCreatesOnSQLite(t *testing.T) {
	t.Run("all new", func(t *testing.T) {
		srv := pdnstest.New(t, pdnstest.Options{})
		posts := locktest.NewGauge()
		srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
			if r.Method == "POST" {
				posts.Enter() // held until another POST comes, or a second
				posts.Leave()
			}
			return 0, "", false
		})
		applyMix(t, srv, 0, 40)
		if posts.Most() < 2 {
			t.Errorf("at most %d zone creations went to the server at once, want several", posts.Most())
		}
	})
	t.Run("some exist", func(t *testing.T) {
		srv := pdnstest.New(t, pdnstest.Options{})
		var mu sync.Mutex
		postsInFlight, patchBesidePost := 0, 0
		srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
			mu.Lock()
			defer mu.Unlock()
			switch r.Method {
			case "POST":
				postsInFlight++
				mu.Unlock()
				time.Sleep(20 * time.Millisecond) // a window for a PATCH to come in
				mu.Lock()
				postsInFlight--
			case "PATCH":
				if postsInFlight > 0 {
					patchBesidePost++
				}
			}
			return 0, "", false
		})
		applyMix(t, srv, 20, 40)
		if patchBesidePost > 0 {
			t.Errorf("%d PATCHes were sent while a POST was in flight", patchBesidePost)
		}
	})
}

// applyMix applies existing+created zones of 5 records each with the
// engine's default parallelism and a driver as site builds it per run;
// the first existing ones are created on the server first. Every step
// must apply without a problem.
func applyMix(t *testing.T, srv *pdnstest.Server, existing, created int) {
	t.Helper()
	var steps []*graph.Step
	for i := range existing + created {
		zone := fmt.Sprintf("mix%d.test.", i)
		if i < existing {
			srv.CreateZone(t, zone)
		}
		step := zoneStep(srv, "office1", zone)
		for j := range 5 {
			step.Zone.RRsets = append(step.Zone.RRsets, rr(fmt.Sprintf("h%d.%s", j, zone), "A", 300, fmt.Sprintf("192.0.2.%d", j+1)))
		}
		steps = append(steps, step)
	}
	e, g := engineFor(t, &Driver{}, steps...)
	e.Parallelism = engine.DefaultParallelism
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(context.Background(), g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		if s.Status != engine.StatusApplied || len(s.Problems) > 0 {
			t.Errorf("step %s: %s %s %q", s.Step, s.Status, s.Reason, s.Problems)
		}
	}
}
