package powerdns

import (
	"context"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestPrefetchIsTheObservationsRead: a zone read ahead (Prefetch) is
// the read its observation would send, whoever sends it: one GET in
// all, counted among the step's reads, and the same plan. A zone the
// server lacks goes the 404 way (confirmed by the zone list), and a
// zone whose key comes from Vault is not read ahead.
func TestPrefetchIsTheObservationsRead(t *testing.T) {
	srv := pdnstest.Shared(t)
	const have, lack = "ahead.test.", "ahead-missing.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+have, nil) })
	www := rr("www."+have, "A", 300, "192.0.2.10")
	d := testDriver()
	mustApply(t, d, mustPlan(t, d, zoneStep(srv, "office1", have, www), newRun(srv)), newRun(srv))

	cases := []struct {
		name    string
		step    *graph.Step
		order   string // "read first": the prefetching goroutine runs first; "observe first": the observation does
		changes int
		gets    int // zone GETs (the 404 one included)
		lists   int // zone lists
		reads   int // what the step counts
	}{
		{name: "read ahead, then observed", step: zoneStep(srv, "office1", have, www), order: "read first", gets: 1, reads: 1},
		{name: "observed before the read ran", step: zoneStep(srv, "office1", have, www), order: "observe first", gets: 1, reads: 1},
		{name: "a zone the server lacks", step: zoneStep(srv, "office1", lack, www), order: "read first", changes: 2, gets: 1, lists: 1, reads: 2},
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
			if tc.order == "read first" {
				read()
			}
			sp := mustPlan(t, d, tc.step, run)
			read() // a read already sent is never sent again
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

	t.Run("key from Vault", func(t *testing.T) {
		step := zoneStep(srv, "office1", have, www)
		step.Zone.Provider.PowerDNS.APIKey = model.Credential{Vault: &model.VaultRef{Vault: "main", Path: "pdns", Key: "key"}}
		if read := d.Prefetch(context.Background(), step.Zone, newRun(srv)); read != nil {
			t.Error("a zone whose key a secret step reads later was read ahead")
		}
	})
}
