package backends

import (
	"reflect"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/internal/runstate"
)

// TestRunStateIsOutOfTheCommandsReach: what a run's steps hand each
// other (the secrets read, values computed once, reads left over) and
// the interrupt are reachable only from packages under backends/ (the
// engine and the drivers, through runstate's narrow accessors), never from cmd/site: a
// *Run, which the command builds and holds, offers no method that
// reads a secret, plants a value for a step or interrupts the run, and
// the state's package is internal to backends/, so the Go toolchain
// refuses its import anywhere else. What a Run still offers drivers of
// it only reads (Interrupted, ReadContext).
func TestRunStateIsOutOfTheCommandsReach(t *testing.T) {
	run := reflect.TypeOf(&Run{})
	for _, name := range []string{"SetSecret", "Credential", "Once", "Known", "Leave", "Take", "Interrupt"} {
		if _, ok := run.MethodByName(name); ok {
			t.Errorf("*backends.Run has method %s, which anything holding a run (cmd/site) can call; it belongs to runstate.State", name)
		}
	}
	for i := range run.Elem().NumField() {
		if f := run.Elem().Field(i); f.IsExported() && (f.Type == reflect.TypeOf(runstate.State{}) || f.Type == reflect.TypeOf(&runstate.State{})) {
			t.Errorf("backends.Run exports its state as field %s", f.Name)
		}
	}
	if p := reflect.TypeOf(runstate.State{}).PkgPath(); !strings.Contains(p, "/backends/internal/") {
		t.Errorf("the run state lives in %s, which packages outside backends/ may import; want it under backends/internal/", p)
	}
	// runstate.Interrupts finds the state of a Run made as a literal, and an
	// interrupt made through it is what the run's readers see.
	r := runstate.Start(&Run{})
	runstate.Interrupts(r).Interrupt()
	if !r.Interrupted() {
		t.Error("runstate.Interrupts(run).Interrupt() did not interrupt the run")
	}
}
