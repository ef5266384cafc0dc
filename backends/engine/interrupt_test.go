package engine

import (
	"context"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

// TestInterruptFinishesInFlightStartsNothing: a run interrupted while
// the network step is in flight lets that step finish and report its
// true state, starts none of the steps after it, and says so in the
// report; a step whose split write stopped part-way is "partial", not
// "failed" or "applied".
func TestInterruptFinishesInFlightStartsNothing(t *testing.T) {
	partial := &backends.PartialError{Applied: 1, Total: 3, Err: backends.ErrInterrupted}
	for _, tc := range []struct {
		name    string
		err     error
		netWant Status
		reason  string
	}{
		{"the step in flight completes", nil, StatusApplied, ""},
		{"the step in flight stops between parts", partial, StatusPartial, partial.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			scripts := map[string]*script{}
			for _, id := range []string{stepNet, stepVM, stepZoneA} {
				scripts[id] = &script{changes: []plan.Change{change(id, "x", plan.ActionCreate)}}
			}
			scripts[stepNet].interrupts = true
			scripts[stepNet].applyErr = tc.err
			d := newTestDriver(scripts)
			e := d.engine(1)
			run := backends.NewRun()
			obs, err := e.Plan(context.Background(), g, run)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := e.Apply(context.Background(), g, obs, run)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.applies(); len(got) != 1 || got[0] != stepNet {
				t.Errorf("Apply called for %q, want only %s", got, stepNet)
			}
			want := map[string]Status{stepNet: tc.netWant, stepVM: StatusSkipped, stepZoneA: StatusSkipped,
				stepSecret: StatusUnchanged, stepZoneB: StatusUnchanged}
			for _, s := range rep.Steps {
				if s.Status != want[s.Step] {
					t.Errorf("step %s: got %q, want %q", s.Step, s.Status, want[s.Step])
				}
				switch {
				case s.Step == stepNet && s.Reason != tc.reason:
					t.Errorf("step %s: reason %q, want %q", s.Step, s.Reason, tc.reason)
				case s.Status == StatusSkipped && s.Reason != "not started: the run was interrupted":
					t.Errorf("step %s: reason %q, want it not started", s.Step, s.Reason)
				}
			}
			if !rep.Interrupted || rep.OK() {
				t.Errorf("report: Interrupted=%v OK=%v, want interrupted and not OK", rep.Interrupted, rep.OK())
			}
		})
	}
}
