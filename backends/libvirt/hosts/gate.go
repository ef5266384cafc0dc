//go:build cgo && libvirt_dlopen

package hosts

import (
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// RefuseUnacked fails a step whose plan holds an action behind a gate
// that was not acknowledged. The executor checks every gate first; this
// guards the one irreversible place, right before a kind's first call.
func RefuseUnacked[O interface{ Gated() plan.Gate }](step string, ops []O, run *backends.Run) error {
	for _, o := range ops {
		if g := o.Gated(); g != "" && !run.Acked[g] {
			return hint.Errorf(hint.Hint{Kind: hint.Acknowledge, Gate: string(g)}, "step %s needs %s, which was not acknowledged: nothing was changed", step, g)
		}
	}
	return nil
}

// InterruptedBefore is the error of a step an interrupt stopped after
// done of its total ops: not started, or partial.
func InterruptedBefore(done, total int) error {
	if done == 0 {
		return fmt.Errorf("not started: %w", backends.ErrInterrupted)
	}
	return &backends.PartialError{Applied: done, Total: total, Err: backends.ErrInterrupted}
}
