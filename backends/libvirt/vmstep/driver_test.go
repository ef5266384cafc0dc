//go:build cgo && libvirt_dlopen

package vmstep

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/netstep"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// TestApplyRefusesUnackedGate hands each driver a plan with a gated
// action and a run that did not acknowledge the gate, as a caller that
// skipped the executor's check would: nothing may reach libvirt.
func TestApplyRefusesUnackedGate(t *testing.T) {
	if err := hosts.Available(); err != nil {
		t.Fatal(err)
	}
	d := hosts.New(hosts.Options{})
	t.Cleanup(func() { _ = d.Close() })
	step := &graph.Step{ID: "vm/test:///default/web"}
	for _, tc := range []struct {
		name  string
		apply func(*backends.Run) error
		gate  plan.Gate
	}{
		{name: "vm", gate: plan.GateVMStop, apply: func(run *backends.Run) error {
			_, err := New(d).Apply(context.Background(), backends.WithDetail(&backends.StepPlan{Step: step},
				&vmDetail{host: "test:///default", ops: []op{{Kind: OpStop, Gate: plan.GateVMStop, Domain: "web"}}}), run)
			return err
		}},
		{name: "network", gate: plan.GateNetDestroy, apply: func(run *backends.Run) error {
			_, err := netstep.New(d).Apply(context.Background(), backends.WithDetail(&backends.StepPlan{Step: step},
				&netstep.Detail{Host: "test:///default", Ops: []netstep.Op{{Kind: netstep.OpDestroy, Gate: plan.GateNetDestroy, Name: "lan"}}}), run)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := d.Calls()
			err := tc.apply(runstate.Start(backends.NewRun()))
			want := fmt.Sprintf("step %s needs %s, which was not acknowledged: nothing was changed", step.ID, tc.gate)
			if cause, h, _ := hint.Split(err); cause != want || h != (hint.Hint{Kind: hint.Acknowledge, Gate: string(tc.gate)}) {
				t.Errorf("got %q with hint %+v, want %q with Acknowledge %s", cause, h, want, tc.gate)
			}
			if n := d.Calls() - before; n != 0 {
				t.Errorf("got %d libvirt calls, want 0", n)
			}
		})
	}
}
