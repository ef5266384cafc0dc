//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
)

// applyHeldWhile applies g as the cross-tenant race tests do: the proxy
// holds the apply's first held call (after its check, before it acts),
// meanwhile runs (another tenant acting in that window), then the call
// goes on and the apply's report is returned.
func (r *rig) applyHeldWhile(g *graph.Graph, obs *engine.Observation, run *backends.Run, held <-chan heldCall, meanwhile func()) *engine.Report {
	r.t.Helper()
	type result struct {
		rep *engine.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := r.tryApply(g, obs, run)
		done <- result{rep, err}
	}()
	h := <-held
	meanwhile()
	close(h.release)
	res := <-done
	if res.err != nil {
		r.t.Fatal(res.err)
	}
	return res.rep
}

// failedSaying returns step id of rep, which must have failed with a
// reason that says each of wants.
func failedSaying(t *testing.T, rep *engine.Report, id string, wants ...string) engine.StepReport {
	t.Helper()
	step := stepReport(t, rep, id)
	if step.Status != engine.StatusFailed {
		t.Fatalf("step %s %s (%s), want failed", id, step.Status, step.Reason)
	}
	for _, want := range wants {
		if !strings.Contains(step.Reason, want) {
			t.Errorf("step %s's error does not say %q:\n%s", id, want, step.Reason)
		}
	}
	return step
}
