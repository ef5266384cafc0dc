package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// TestInterruptFinishesInFlightStartsNothing: a run interrupted while
// the network step is in flight lets that step finish and report its
// true state, starts none of the steps after it, and says so in the
// report; a step whose split write stopped part-way is "partial", not
// "failed" or "applied".
func TestInterruptFinishesInFlightStartsNothing(t *testing.T) {
	partial := &backends.PartialError{Applied: 1, Total: 3, Err: backends.ErrInterrupted}
	notStarted := fmt.Errorf("not started: it waited its turn to write to the server: %w", backends.ErrInterrupted)
	stopped := fmt.Errorf("upload into images/seed.iso: 0 bytes of 46.0 KiB sent, stopped at the interrupt: %w", backends.ErrInterrupted)
	for _, tc := range []struct {
		name    string
		err     error
		netWant Status
		reason  string
		// requests the step made, which its backend does not split
		// into reads and writes
		requests int
	}{
		{"the step in flight completes", nil, StatusApplied, "", 0},
		{"the step in flight stops between parts", partial, StatusPartial, partial.Error(), 0},
		// Stopped before its first write (waiting its turn for the
		// server): not started, as the steps after it, not failed.
		{"the step in flight had not written yet", notStarted, StatusSkipped, notStarted.Error(), 0},
		// Stopped after calls that may have been writes (a libvirt VM
		// step defines its domain before it uploads its seed): not
		// "not started", which would say it changed nothing.
		{"the step in flight stops after calls that may have written", stopped, StatusFailed, stopped.Error(), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			scripts := creates(stepNet, stepVM, stepZoneA)
			scripts[stepNet].interrupts = true
			scripts[stepNet].applyErr = tc.err
			scripts[stepNet].requests = tc.requests
			d := newTestDriver(scripts)
			e := d.engine(1)
			run := runstate.Start(backends.NewRun())
			rep := planApply(t, e, g, run, run)
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
				case s.Step != stepNet && s.Status == StatusSkipped && s.Reason != "not started: the run was interrupted":
					t.Errorf("step %s: reason %q, want it not started", s.Step, s.Reason)
				}
			}
			if !rep.Interrupted || rep.OK() {
				t.Errorf("report: Interrupted=%v OK=%v, want interrupted and not OK", rep.Interrupted, rep.OK())
			}
		})
	}
}

// TestInterruptAbandonsAStuckObservation: a step whose observation
// blocks where no context reaches (a libvirt daemon that stopped
// answering) does not keep an interrupted Plan waiting: Plan returns,
// the step blocked as not observed, the rest as they were. It waited for
// the stuck call (a hung libvirtd kept site diff past SIGINT and SIGTERM).
func TestInterruptAbandonsAStuckObservation(t *testing.T) {
	g := mustGraph(t, testSpec())
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	d := newTestDriver(map[string]*script{stepNet: {stuck: stuck}})
	ctx, cancel := context.WithCancel(context.Background())
	e := d.engine(4)
	type planned struct {
		obs *Observation
		err error
	}
	out := make(chan planned, 1)
	go func() {
		obs, err := e.Plan(ctx, g, runstate.Start(backends.NewRun()))
		out <- planned{obs, err}
	}()
	d.waitPlanning(t, stepNet)
	cancel()
	var got planned
	select {
	case got = <-out:
	case <-time.After(20 * time.Second):
		t.Fatal("Plan still waits for the stuck observation 20 s after the interrupt")
	}
	if !errors.Is(got.err, context.Canceled) {
		t.Errorf("Plan returned %v, want the context's end", got.err)
	}
	var reason string
	for _, b := range got.obs.Plan.Blocked {
		if b.Step == stepNet {
			reason = b.Reason
		}
	}
	if !strings.Contains(reason, "not observed: context canceled") {
		t.Errorf("the stuck step's reason is %q, want it not observed because of the interrupt; blocked: %+v", reason, got.obs.Plan.Blocked)
	}
}

// interruptingHook is an interrupt that lands while the engine hands a
// step to its backend: after the engine asked whether the run was
// interrupted, before the step is known to be in flight. It then keeps
// what a caller keeps (site's progress), the steps reported started.
type interruptingHook struct {
	recorder
	run *backends.Run
}

func (h *interruptingHook) Started(step string) {
	runstate.Interrupts(h.run).Interrupt()
	h.recorder.Started(step)
}

// TestInterruptBeforeStartedStartsNothing: a step whose start an
// interrupt overtakes is not applied. site's second Ctrl-C lets go of a
// tenant's apply lock once none of its steps is in flight (Started, not
// yet Applied); a step that went on to write after its Started came late
// would write beside the next run that takes the lock.
func TestInterruptBeforeStartedStartsNothing(t *testing.T) {
	g := mustGraph(t, testSpec())
	d := newTestDriver(creates(stepNet, stepVM, stepZoneA))
	e := d.engine(1)
	run := runstate.Start(backends.NewRun())
	hook := &interruptingHook{run: run}
	e.Hook = hook
	rep := planApply(t, e, g, run, run)
	if got := d.applies(); len(got) != 0 {
		t.Errorf("Apply called for %q after the interrupt, want none", got)
	}
	for _, s := range rep.Steps {
		if s.Step == stepNet && (s.Status != StatusSkipped || s.Reason != "not started: the run was interrupted") {
			t.Errorf("step %s: %q (%s), want skipped, not started", s.Step, s.Status, s.Reason)
		}
	}
	if !slices.Equal(hook.started, []string{stepNet}) {
		t.Errorf("started %q, want only %s, which the interrupt overtook", hook.started, stepNet)
	}
}

// TestReadsInterrupt: reads without a session stop at the first
// interrupt (the run is interrupted, their context cancelled) and say
// so through the hook; the second says the command exits.
func TestReadsInterrupt(t *testing.T) {
	run := runstate.Start(backends.NewRun())
	ctx, stop := context.WithCancel(context.Background())
	var heard []Event
	r := Reads{Run: run, Stop: stop, Hook: notifyFunc(func(e Event) { heard = append(heard, e) }), Within: 3 * time.Second}
	r.Interrupt()
	if !run.Interrupted() || ctx.Err() == nil {
		t.Errorf("after Interrupt: run interrupted %v, reads' context %v; want both stopped", run.Interrupted(), ctx.Err())
	}
	r.InterruptAgain()
	if len(heard) != 2 {
		t.Fatalf("heard %d events, want 2: %v", len(heard), heard)
	}
	if e, ok := heard[0].(Interrupted); !ok || e.Within != 3*time.Second {
		t.Errorf("first event %#v, want Interrupted within 3s", heard[0])
	}
	if _, ok := heard[1].(InterruptedAgain); !ok {
		t.Errorf("second event %#v, want InterruptedAgain", heard[1])
	}
}

type notifyFunc func(Event)

func (f notifyFunc) Notify(e Event) { f(e) }
