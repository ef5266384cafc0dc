package backends

import (
	"context"
	"fmt"
	"reflect"

	"github.com/site-tools/site/compiler/graph"
)

// Typed is a Driver made of a driver's typed plan and apply: PlanD
// returns the step's plan and the driver's own detail of type D (the
// batch to send, the XML to define, the ops to run), and ApplyD
// receives that detail as it was planned, typed. The detail travels in
// the StepPlan, unexported, so no other code reads or replaces it; the
// one place it is taken out again, and checked to be a D, is DetailOf.
//
//	func (d *Driver) typed() backends.Typed[*batch] {
//		return backends.Typed[*batch]{Name: "powerdns", PlanD: d.plan, ApplyD: d.apply}
//	}
//	func (d *Driver) Plan(ctx context.Context, s *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
//		return d.typed().Plan(ctx, s, run)
//	}
type Typed[D any] struct {
	// Name names the driver in the error of a plan it did not make.
	Name   string
	PlanD  func(ctx context.Context, step *graph.Step, run *Run) (*StepPlan, D, error)
	ApplyD func(ctx context.Context, sp *StepPlan, detail D, run *Run) (*StepResult, error)
}

// Plan calls PlanD and keeps its detail in the plan for Apply.
func (t Typed[D]) Plan(ctx context.Context, step *graph.Step, run *Run) (*StepPlan, error) {
	sp, d, err := t.PlanD(ctx, step, run)
	if sp != nil {
		sp.detail = d
	}
	return sp, err
}

// Apply calls ApplyD with the detail PlanD returned with sp; a plan
// that another driver made, or none, is refused before anything is
// done.
func (t Typed[D]) Apply(ctx context.Context, sp *StepPlan, run *Run) (*StepResult, error) {
	d, err := DetailOf[D](sp)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s driver applies only the plans it made in this process (a bug in site: please report it)", err, t.Name)
	}
	return t.ApplyD(ctx, sp, d, run)
}

// WithDetail returns sp carrying d as its detail, as Typed.Plan leaves
// it: for a driver that builds a plan for a Typed of its own outside
// PlanD (a decorator, a test).
func WithDetail[D any](sp *StepPlan, d D) *StepPlan {
	sp.detail = d
	return sp
}

// DetailOf returns the detail sp carries as a D (a driver's own type,
// or an interface it implements), or an error naming the step and the
// type it holds instead.
func DetailOf[D any](sp *StepPlan) (D, error) {
	var zero D
	if sp == nil {
		return zero, fmt.Errorf("no plan to apply")
	}
	d, ok := sp.detail.(D)
	if !ok {
		id := "(no step)"
		if sp.Step != nil {
			id = sp.Step.ID
		}
		return zero, fmt.Errorf("step %s: its plan holds %T, not the %v its driver planned", id, sp.detail, reflect.TypeFor[D]())
	}
	return d, nil
}
