//go:build cgo && libvirt_dlopen

package vmstep

import (
	"context"
	"errors"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// TestOpsStopAtInterrupt: after an interrupt a VM step starts no
// further op; the op on the wire finishes, and the step is partial (or
// not started), saying so. No daemon: the ops are the test's.
func TestOpsStopAtInterrupt(t *testing.T) {
	ops := []op{{Kind: OpCreateVolume, Domain: "web", Volume: "web-data"}, {Kind: OpStart, Domain: "web"}, {Kind: OpRestart, Domain: "db"}}
	for _, tc := range []struct {
		name        string
		interruptAt int // the op during which the interrupt comes; -1 before the first
		wantTries   int
		wantPartial bool
	}{
		{"before the first op", -1, 0, false},
		{"during the first op", 0, 1, true},
		{"during the second op", 1, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(backends.NewRun())
			if tc.interruptAt < 0 {
				runstate.Interrupts(run).Interrupt()
			}
			tries := 0
			a := &applier{d: &hostSet{hosts.New(hosts.Options{Run: run})}, host: "h", res: &backends.StepResult{}, run: run, try: func(o op) error {
				if tries == tc.interruptAt {
					runstate.Interrupts(run).Interrupt()
				}
				tries++
				return nil
			}}
			err := a.runOps(context.Background(), ops)
			if tries != tc.wantTries {
				t.Errorf("got %d ops sent, want %d", tries, tc.wantTries)
			}
			if !errors.Is(err, backends.ErrInterrupted) {
				t.Fatalf("got %v, want the interrupt", err)
			}
			var partial *backends.PartialError
			if got := errors.As(err, &partial); got != tc.wantPartial {
				t.Errorf("partial = %v (%v), want %v", got, err, tc.wantPartial)
			}
		})
	}
}
