package powerdns

import (
	"context"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestPrefetchIsTheObservationsRead: a zone read ahead (Prefetch) is
// the read its observation would send, whoever sends it: one GET in
// all, counted among the step's reads, and the same plan. A zone the
// server lacks goes the 404 way (confirmed by the zone list). The read
// returns once the observation has taken its answer (so a caller
// bounding reads bounds the answers held), or when its context ends;
// a zone whose key comes from Vault is not read ahead.
func TestPrefetchIsTheObservationsRead(t *testing.T) {
	srv := pdnstest.Shared(t)
	const have, lack = "ahead.test.", "ahead-missing.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+have, nil) })
	www := rr("www."+have, "A", 300, "192.0.2.10")
	d := testDriver()
	mustApply(t, d, mustPlan(t, d, zoneStep(srv, "office1", have, www), newRun(srv)), newRun(srv))

	// sent waits until the server has seen n GETs of zone: an event,
	// the deadline only ends a test that would hang.
	sent := func(zone string, n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); srv.Requests(zone).GET < n; {
			if time.Now().After(deadline) {
				t.Fatalf("the read ahead never sent its GET of %s", zone)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	cases := []struct {
		name    string
		step    *graph.Step
		first   string // "read": the prefetching goroutine sends the GET; "observe": the observation does
		changes int
		gets    int // zone GETs (the 404 one included)
		lists   int // zone lists
		reads   int // what the step counts
	}{
		{name: "read ahead, then observed", step: zoneStep(srv, "office1", have, www), first: "read", gets: 1, reads: 1},
		{name: "observed before the read ran", step: zoneStep(srv, "office1", have, www), first: "observe", gets: 1, reads: 1},
		{name: "a zone the server lacks", step: zoneStep(srv, "office1", lack, www), first: "read", changes: 2, gets: 1, lists: 1, reads: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := newRun(srv)
			zone := tc.step.Zone.Name
			srv.ResetRequests(zone)
			srv.ResetRequests("")
			read := d.Prefetch(context.Background(), tc.step.Zone, run)
			if read == nil {
				t.Fatal("Prefetch read nothing ahead")
			}
			returned := make(chan struct{})
			var sp *backends.StepPlan
			if tc.first == "read" {
				go func() { read(); close(returned) }()
				sent(zone, 1)
				// Answered, not taken: the read still holds its place
				// (a negative check: a longer wait only makes it
				// stricter).
				select {
				case <-returned:
					t.Error("the read returned before its answer was taken")
				case <-time.After(50 * time.Millisecond):
				}
				sp = mustPlan(t, d, tc.step, run)
			} else {
				sp = mustPlan(t, d, tc.step, run)
				go func() { read(); close(returned) }() // already taken: sends nothing
			}
			select {
			case <-returned:
			case <-time.After(20 * time.Second):
				t.Fatal("the read did not return after its answer was taken")
			}
			if len(sp.Changes) != tc.changes || sp.Reads != tc.reads {
				t.Errorf("planned %q with %d reads, want %d changes and %d reads", summary(sp.Changes), sp.Reads, tc.changes, tc.reads)
			}
			if got := srv.Requests(zone).GET; got != tc.gets {
				t.Errorf("%d GETs of the zone, want %d", got, tc.gets)
			}
			if got := srv.Requests("").GET; got != tc.lists {
				t.Errorf("%d zone lists, want %d", got, tc.lists)
			}
		})
	}

	t.Run("never taken, context ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		read := d.Prefetch(ctx, zoneStep(srv, "office1", have, www).Zone, newRun(srv))
		returned := make(chan struct{})
		go func() { read(); close(returned) }()
		cancel()
		select {
		case <-returned:
		case <-time.After(20 * time.Second):
			t.Fatal("a read nobody took did not return when its context ended")
		}
	})

	t.Run("key from Vault", func(t *testing.T) {
		step := zoneStep(srv, "office1", have, www)
		step.Zone.Provider.PowerDNS.APIKey = model.Credential{Vault: &model.VaultRef{Vault: "main", Path: "pdns", Key: "key"}}
		if read := d.Prefetch(context.Background(), step.Zone, newRun(srv)); read != nil {
			t.Error("a zone whose key a secret step reads later was read ahead")
		}
	})
}
