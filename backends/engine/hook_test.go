package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/plan"
)

// recorder is a Hook that writes down every call as a line.
type recorder struct{ calls, started, observing []string }

func (r *recorder) PlanStart(total int) {
	r.calls = append(r.calls, fmt.Sprintf("plan start %d", total))
}
func (r *recorder) Observed(id string, sp *backends.StepPlan, b *plan.Blocked) {
	switch {
	case sp != nil:
		r.calls = append(r.calls, fmt.Sprintf("observed %s %d", id, len(sp.Changes)))
	default:
		r.calls = append(r.calls, fmt.Sprintf("blocked %s skipped=%v", id, b.Skipped))
	}
}
func (r *recorder) PlanDone(obs *Observation) {
	r.calls = append(r.calls, fmt.Sprintf("plan done %d blocked", len(obs.Plan.Blocked)))
}
func (r *recorder) ApplyStart(total int) {
	r.calls = append(r.calls, fmt.Sprintf("apply start %d", total))
}
func (r *recorder) Started(step string) { r.started = append(r.started, step) }

// Observing makes the recorder an ObservingHook.
func (r *recorder) Observing(step string) { r.observing = append(r.observing, step) }
func (r *recorder) Applied(s StepReport) {
	r.calls = append(r.calls, fmt.Sprintf("%s %s", s.Status, s.Step))
}
func (r *recorder) ApplyDone(rep *Report) {
	r.calls = append(r.calls, fmt.Sprintf("apply done ok=%v", rep.OK()))
}

// TestHookHearsEveryStep: the hook gets a start, one call per step and
// a done for each walk, whatever order the steps finish in; the calls
// are serialised, so the recorder's unlocked append is safe (go test
// -race would say otherwise).
func TestHookHearsEveryStep(t *testing.T) {
	g := mustGraph(t, testSpec())
	d := newTestDriver(map[string]*script{
		stepSecret: {planErr: &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: errors.New("no vault answered")}},
		stepNet:    {changes: []plan.Change{change(stepNet, "lan", plan.ActionCreate)}, applyErr: errors.New("refused")},
	})
	rec := &recorder{}
	e := d.engine(4)
	e.Hook = rec
	run := runstate.Start(backends.NewRun())
	run.Acked[plan.GateSecretUnreachable] = true
	planApply(t, e, g, run, run)
	// Steps finish in any order between start and done: compare sorted.
	n := len(g.Steps)
	if len(rec.calls) != 2*n+4 {
		t.Fatalf("got %d hook calls, want %d:\n%q", len(rec.calls), 2*n+4, rec.calls)
	}
	planSteps := slices.Clone(rec.calls[1 : n+1])
	applySteps := slices.Clone(rec.calls[n+3 : 2*n+3])
	sort.Strings(planSteps)
	sort.Strings(applySteps)
	got := append(append(append([]string{rec.calls[0]}, planSteps...), rec.calls[n+1:n+3]...), append(applySteps, rec.calls[2*n+3])...)
	want := []string{
		"plan start 5",
		"blocked " + stepSecret + " skipped=false",
		"blocked " + stepZoneB + " skipped=true",
		"observed " + stepZoneA + " 0",
		"observed " + stepNet + " 1",
		"observed " + stepVM + " 0",
		"plan done 2 blocked",
		"apply start 5",
		"deferred " + stepSecret,
		"deferred " + stepZoneB,
		"failed " + stepNet,
		"skipped " + stepVM,
		"skipped " + stepZoneA,
		"apply done ok=false",
	}
	sort.Strings(want[1:6])
	sort.Strings(want[8:13])
	if !slices.Equal(got, want) {
		t.Errorf("hook calls:\ngot  %q\nwant %q", got, want)
	}
	// Only the step handed to its backend was in flight.
	if want := []string{stepNet}; !slices.Equal(rec.started, want) {
		t.Errorf("Started: got %q, want %q", rec.started, want)
	}
	// Every step Plan visits is said to be observed first, so an
	// interrupt can name what it stops.
	slices.Sort(rec.observing)
	var all []string
	for _, s := range g.Steps {
		all = append(all, s.ID)
	}
	slices.Sort(all)
	if !slices.Equal(rec.observing, all) {
		t.Errorf("Observing: got %q, want every step %q", rec.observing, all)
	}
}
