//go:build cgo && libvirt_dlopen

package conn

import (
	"context"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// Typed is a libvirt step driver as a backends.Driver whose plans carry
// detail D: every error its plan and apply return is passed through
// Explain, so each kind says what a libvirt failure means the same way.
func Typed[D any](name string,
	plan func(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, D, error),
	apply func(ctx context.Context, sp *backends.StepPlan, detail D, run *backends.Run) (*backends.StepResult, error),
) backends.Typed[D] {
	return backends.Typed[D]{
		Name: name,
		PlanD: func(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, D, error) {
			sp, det, err := plan(ctx, step, run)
			return sp, det, Explain(err)
		},
		ApplyD: func(ctx context.Context, sp *backends.StepPlan, det D, run *backends.Run) (*backends.StepResult, error) {
			res, err := apply(ctx, sp, det, run)
			return res, Explain(err)
		},
	}
}
