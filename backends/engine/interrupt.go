package engine

import (
	"context"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// What an interrupt (Ctrl-C, SIGTERM) does to a Session; the caller
// owns the signals and calls Interrupt for the first, InterruptAgain
// for the second, then exits:
//
//   - The first one stops observing (reads only: nothing was changed)
//     and makes apply start nothing new, while every step in flight
//     finishes; a PowerDNS PATCH split at the body limit stops between
//     parts, and an upload into a libvirt volume between chunks (its
//     partial volume deleted). It says at once what it is finishing,
//     and apply then reports each step's true state ("applied part 1
//     of 3", "not started"). It ends a wait for another run's lock too
//     (nothing was changed yet).
//   - The second one names the steps that were in flight and may be
//     half-done and, within Options.ExitWithin, releases the apply
//     locks (lockexit.go): the apply its message asks for must not be
//     refused by this run's lease for a minute, nor a hung server keep
//     the user waiting; but a tenant's lock is released only once none
//     of its writes can still land, so that apply never runs beside one
//     of them.
//
// The context the backends write with is never the interrupt's:
// cancelling it would cut a batch in half, which is what a first
// interrupt promises not to do.

// Interrupt is the first interrupt: observing stops, nothing new
// starts, and an Interrupted event says what goes on.
func (s *Session) Interrupt() {
	// The run first: a step Apply starts from now on is skipped, so the
	// steps in flight read next are all that will write.
	runstate.Interrupts(s.run).Interrupt()
	e := Interrupted{Running: s.track.running(), Awaiting: s.run.Awaiting(), Within: s.o.ExitWithin}
	if len(e.Running) == 0 {
		e.Observing = s.track.observing()
	}
	// Said before observing stops, so that a view shows each step it
	// stops as stopped, not as blocked by its backend.
	s.notify(e)
	s.stopObserving()
}

// InterruptAgain is the second interrupt: it says which steps may be
// half-done and lets go of an applying run's locks for the exit, within
// Options.ExitWithin, saying which outlive it (LockKept). No lock is
// taken after it; the caller exits.
func (s *Session) InterruptAgain() {
	runstate.Interrupts(s.run).Interrupt() // a second interrupt with no first one (a test) stops retries too
	s.notify(InterruptedAgain{Running: s.track.running()})
	if !s.o.Apply {
		return
	}
	for _, k := range s.locks.releaseForExit(s.ctx, s.o.ExitWithin, s.track.inFlightNow, s.notify) {
		k.Now = time.Now()
		s.notify(k)
	}
}

// Reads are the reads of a command without a Session (site leftovers):
// an interrupt stops them (Stop cancels their context) and says so to
// Hook as a session would, giving Within as the bound of the exit.
type Reads struct {
	Run    *backends.Run
	Stop   context.CancelFunc
	Hook   interface{ Notify(Event) }
	Within time.Duration
}

// Interrupt stops the reads and says what they were waiting on.
func (r Reads) Interrupt() {
	runstate.Interrupts(r.Run).Interrupt()
	r.Stop()
	r.Hook.Notify(Interrupted{Awaiting: r.Run.Awaiting(), Within: r.Within})
}

// InterruptAgain says the command exits.
func (r Reads) InterruptAgain() { r.Hook.Notify(InterruptedAgain{}) }
