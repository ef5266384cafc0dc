//go:build cgo && libvirt_dlopen

package vmstep

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// TestRefuseUnackedHint: a step refused for a gate nobody acknowledged
// tells the user, as a typed hint naming that gate, to rerun with it.
func TestRefuseUnackedHint(t *testing.T) {
	for _, g := range []plan.Gate{plan.GateVMDestroy, plan.GateVMRestart} {
		t.Run(string(g), func(t *testing.T) {
			err := hosts.RefuseUnacked("vm/h1/web", []op{{}, {Gate: g}}, runstate.Start(backends.NewRun()))
			want := hint.Hint{Kind: hint.Acknowledge, Gate: string(g)}
			if got := hint.Of(err); got != want {
				t.Fatalf("hint.Of(%v) = %+v, want %+v", err, got, want)
			}
			if !strings.HasSuffix(err.Error(), "nothing was changed; "+want.Render()) {
				t.Errorf("text %q does not end with the hint", err)
			}
		})
	}
}
