package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/words"
)

// An Event is what a Session tells the person running it besides each
// step's outcome: a slow server, a wait for another run's lock, an
// interrupt, a lock that outlives the run. Each is a value a view can
// render as it likes (match its type); String is the one line site
// prints for it.
type Event interface{ String() string }

// Said is a line a backend says of a wait of a step's own that is no
// request to a server (a guest asked to shut down).
type Said struct{ Line string }

func (e Said) String() string { return "site: " + e.Line }

// SlowRequest is a request a server has left unanswered for Waited:
// said once at Options.SlowAfter, then each time the wait doubles.
type SlowRequest struct {
	backends.Awaited
	Waited time.Duration
}

func (e SlowRequest) String() string {
	return fmt.Sprintf("site: waiting for %s to answer %s (%s)...", e.Server, e.Request, e.Waited.Round(time.Second))
}

// LockWaiting is a wait for another run's apply lock of Tenant, said
// once: the wait may be long, and was silent.
type LockWaiting struct {
	Tenant string
	Other  lock.Holder
	Where  string
	Wait   time.Duration
}

func (e LockWaiting) String() string {
	until := "for it to finish"
	if e.Other.State == lock.Claim {
		until = "for it to take the lock and finish, or for its claim to run out"
	}
	return fmt.Sprintf("site: %s; waiting up to %s (--lock-timeout) %s", lock.Busy(e.Tenant, e.Other, e.Where), e.Wait, until)
}

// LockTakenOver is the expired lock of a dead run this run took: that
// run may have stopped half-way.
type LockTakenOver struct {
	Tenant string
	Dead   lock.Holder
}

func (e LockTakenOver) String() string {
	return fmt.Sprintf("site: took over the expired apply lock of tenant %s held by %s: that run may have left changes half-done; this apply converges them", e.Tenant, e.Dead)
}

// LockNote is a line about a tenant's apply lock that a diff only reads:
// another run applies it now, or one that died left it behind.
type LockNote struct{ Line string }

func (e LockNote) String() string { return e.Line }

// Failed is what went wrong at the end of a run that changes nothing
// it did (releasing a lock, closing a connection): said, and the exit
// code stays.
type Failed struct{ Err error }

func (e Failed) String() string { return "site: " + e.Err.Error() }

// CloseTimedOut says closing the connections did not finish in time.
type CloseTimedOut struct{ Within time.Duration }

func (e CloseTimedOut) String() string {
	return fmt.Sprintf("site: closing the connections did not finish within %s (a server that stopped answering?); exiting without waiting longer", e.Within)
}

// Interrupted is the first interrupt: observing stops (Observing, when
// no step is in flight), the steps in flight (Running) finish, nothing
// new starts; Awaiting are the requests it was waiting for, and Within
// bounds the exit of a second one.
type Interrupted struct {
	Observing, Running []string
	Awaiting           []backends.Awaited
	Within             time.Duration
}

func (e Interrupted) String() string {
	switch {
	case len(e.Observing) > 0 && len(e.Running) == 0:
		// Observing only reads, so it stops rather than finishes.
		waiting := ""
		if len(e.Awaiting) > 0 {
			waiting = ", which was waiting for " + waitingFor(e.Awaiting)
		}
		return "site: interrupted: stopping the observation of " + strings.Join(e.Observing, ", ") + waiting +
			" (it only reads: nothing was changed); " + e.again()
	case len(e.Running) == 0 && len(e.Awaiting) > 0:
		return "site: interrupted: starting nothing new; in flight: waiting for " + waitingFor(e.Awaiting) + "; " + e.again()
	case len(e.Running) == 0:
		return "site: interrupted: starting nothing new (" + e.again() + ")"
	}
	return "site: interrupted: finishing " + strings.Join(e.Running, ", ") +
		" (in flight), starting nothing new; " + e.again() + ", which may leave " + words.Plural(len(e.Running), "it", "them") + " half-done"
}

// again says what a second interrupt does and how long it takes: up to
// Within while a write in flight keeps its tenant's lock, at once
// otherwise, so "at once" would promise too much.
func (e Interrupted) again() string {
	return fmt.Sprintf("interrupt again to exit within %s", e.Within)
}

// InterruptedAgain is the second interrupt: the process exits, and
// Running may be half-done.
type InterruptedAgain struct{ Running []string }

func (e InterruptedAgain) String() string {
	if len(e.Running) == 0 {
		return "site: interrupted again: exiting now; nothing was in flight"
	}
	return "site: interrupted again: exiting now; these steps may be half-done: " + strings.Join(e.Running, ", ") +
		" (site diff shows where they stand; site apply converges them)"
}

// ExitWaits is what the exit of a second interrupt waits for, up to
// Within, before it lets go of Tenant's lock: Steps in flight, or,
// with none, the requests taking the lock.
type ExitWaits struct {
	Tenant string
	Steps  []string
	Within time.Duration
}

func (e ExitWaits) String() string {
	if len(e.Steps) == 0 {
		return fmt.Sprintf("site: waiting up to %s for the requests taking tenant %s's apply lock to be answered, to remove the entries they wrote", e.Within, e.Tenant)
	}
	return fmt.Sprintf("site: waiting up to %s for %s to finish before releasing tenant %s's apply lock: a write of %s may still land",
		e.Within, strings.Join(e.Steps, ", "), e.Tenant, words.Plural(len(e.Steps), "it", "them"))
}

// waitingFor names requests in flight for a message: "PowerDNS pdns
// (URL) to answer GET zones/a.", at most three of them.
func waitingFor(as []backends.Awaited) string {
	const most = 3
	var parts []string
	for i, a := range as {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(as)-most))
			break
		}
		parts = append(parts, a.Server+" to answer "+a.Request)
	}
	return strings.Join(parts, ", ")
}
