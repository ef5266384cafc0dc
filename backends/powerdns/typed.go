package powerdns

import (
	"context"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// typed is the driver as a backends.Driver: its plans carry the batch
// their Apply sends.
func (d *Driver) typed() backends.Typed[*batch] {
	return backends.Typed[*batch]{Name: "powerdns", PlanD: d.plan, ApplyD: d.apply}
}

// Plan observes the zone and plans it (see plan).
func (d *Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return d.typed().Plan(ctx, step, run)
}

// Apply carries out a plan of Plan (see apply).
func (d *Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return d.typed().Apply(ctx, sp, run)
}
