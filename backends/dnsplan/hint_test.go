package dnsplan_test

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// TestCheckCompletionHint: a change found at apply behind a gate the
// plan did not show tells the user, as a typed hint naming the gate, to
// look at it again and acknowledge it.
func TestCheckCompletionHint(t *testing.T) {
	for _, g := range []plan.Gate{"GATE-DNS-OVERWRITE", "GATE-DNS-DELETE"} {
		t.Run(string(g), func(t *testing.T) {
			changes := []plan.Change{{Key: "dns/x", Action: plan.ActionUpdate, Gates: []plan.Gate{g}}}
			err := dnsplan.CheckCompletion(zone, nil, changes, runstate.Start(backends.NewRun()))
			want := hint.Hint{Kind: hint.ReviewThenAcknowledge, Gate: string(g)}
			if got := hint.Of(err); got != want {
				t.Fatalf("hint.Of(%v) = %+v, want %+v", err, got, want)
			}
			if !strings.HasSuffix(err.Error(), "did not show; "+want.Render()) {
				t.Errorf("text %q does not end with the hint", err)
			}
		})
	}
}
