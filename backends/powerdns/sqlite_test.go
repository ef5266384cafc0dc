package powerdns

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
)

// TestParallelApplyOnSQLite applies many small zones with the engine's
// default parallelism to a server on the gsqlite3 backend, the one small
// sites use: concurrent writes there fail with HTTP 500 "database is
// locked" (apis.md), so the driver must serialise its writes to one
// server and wait out a lock that a concurrent read still causes.
func TestParallelApplyOnSQLite(t *testing.T) {
	const zones, records = 200, 5
	srv := pdnstest.New(t, pdnstest.Options{})
	var steps []*graph.Step
	for i := range zones {
		zone := fmt.Sprintf("lock%d.test.", i)
		srv.CreateZone(t, zone)
		step := zoneStep(srv, "office1", zone)
		for j := range records {
			step.Zone.RRsets = append(step.Zone.RRsets, rr(fmt.Sprintf("h%d.%s", j, zone), "A", 300, fmt.Sprintf("192.0.2.%d", j+1)))
		}
		steps = append(steps, step)
	}
	// The production defaults: the driver as site builds it per run.
	d := &Driver{}
	e, g := engineFor(t, d, steps...)
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
