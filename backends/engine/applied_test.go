package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// TestAppliedHints: apply's JSON says an error's advice apart, as a
// hint with its kind, for the run and for each failed step; an error
// with none has no hint.
func TestAppliedHints(t *testing.T) {
	p := plan.New()
	partial := &backends.PartialError{Applied: 1, Total: 3, Err: errors.New("HTTP 500")}
	rep := &Report{Steps: []StepReport{
		{Step: "dns/a.", Status: StatusPartial, Reason: partial.Error(), Hint: hint.Of(partial)},
		{Step: "dns/b.", Status: StatusFailed, Reason: "HTTP 500"},
	}}
	runErr := fmt.Errorf("apply: %w", partial)
	a := Applied(p, nil, rep, runErr, false)
	if a.Hint == nil || a.Hint.Kind != "run_again" || a.Error != "apply: applied part 1 of 3; part 2 failed: HTTP 500" {
		t.Errorf("run: error %q, hint %+v; want the cause and a run_again hint", a.Error, a.Hint)
	}
	if len(a.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(a.Steps))
	}
	if s := a.Steps[0]; s.Hint == nil || s.Hint.Kind != "run_again" || s.Error != "applied part 1 of 3; part 2 failed: HTTP 500" {
		t.Errorf("partial step: error %q, hint %+v", s.Error, s.Hint)
	}
	if s := a.Steps[1]; s.Hint != nil || s.Error != "HTTP 500" {
		t.Errorf("failed step: error %q, hint %+v; want no hint", s.Error, s.Hint)
	}
}
