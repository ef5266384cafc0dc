package engine

import (
	"context"
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// A backend that panics must not take the whole run down with it: the
// other branches may be half-way through their own batches. The panic
// becomes that step's error, which blocks or fails only it and its
// dependents, and says it is a bug to report.
//
// Every driver gets a context that carries the run (backends.WithRun):
// its retries (backends.Retry) end at the run's interrupt and keep to
// its request timeout. It carries the step's Inputs too
// (backends.WithInputs), the caller's.

func guardedPlan(ctx context.Context, d backends.Driver, s *graph.Step, run *backends.Run) (sp *backends.StepPlan, err error) {
	defer func() {
		if p := recover(); p != nil {
			sp, err = nil, fmt.Errorf("step %s: its backend panicked while observing (a bug in site; please report it): %v", s.ID, p)
		}
	}()
	return d.Plan(backends.WithRun(ctx, run), s, run)
}

func guardedApply(ctx context.Context, d backends.Driver, sp *backends.StepPlan, run *backends.Run) (res *backends.StepResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("step %s: its backend panicked while applying, so some changes may be made and others not (a bug in site; please report it; a re-run converges): %v", sp.Step.ID, p)
		}
	}()
	return d.Apply(backends.WithRun(ctx, run), sp, run)
}
