package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/site-tools/site/backends"
)

// What Ctrl-C (SIGINT) and SIGTERM do to diff and apply:
//
//   - The first one stops observing (reads only: nothing was changed)
//     and makes apply start nothing new, while every step in flight
//     finishes; a PowerDNS PATCH split at the body limit stops between
//     parts, and an upload into a libvirt volume between chunks (its
//     partial volume deleted). site says at once what it is finishing, and apply then
//     prints its usual report with each step's true state ("applied
//     part 1 of 3", "not started") and exits 1.
//   - The second one exits with exitInterrupted, within releaseOnExit,
//     naming the steps that were in flight and may be half-done. On
//     the way out it releases apply's locks (interrupt_locks.go): the
//     apply its message asks for must not be refused by this run's
//     lease for a minute, nor a hung server keep the user waiting; but
//     a tenant's lock is released only once none of its writes can
//     still land, so that apply never runs beside one of them.
//   - apply watches from before it takes its locks: the first one ends
//     a wait for another run's lock (nothing was changed yet).
//
// The context the backends write with is never the signal's: cancelling
// it would cut a batch in half, which is what a first Ctrl-C promises
// not to do.

// signalSource subscribes to the signals that interrupt a run and
// returns the channel and how to unsubscribe; tests replace it to send
// their own.
var signalSource = func() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c, func() { signal.Stop(c) }
}

// exitNow ends the process after a second interrupt; tests replace it.
var exitNow = os.Exit

// releaseOnExit bounds the exit of a second interrupt: the wait for
// the steps and lock requests in flight and the release of apply's
// locks, all of them together; tests change it.
var releaseOnExit = 2 * time.Second

// watchInterrupts handles the signals of one diff or apply: the first
// cancels observing and interrupts run, the second releases locks (nil
// for diff, which takes none) and exits. Progress names what is in
// flight and carries the messages. The returned function stops
// watching; once the second signal came it returns only after the
// exit (never, but in tests), so the run cannot release the locks
// beside it, nor end with a code of its own.
func watchInterrupts(p *progress, run *backends.Run, stopObserving context.CancelFunc, locks *tenantLocks) func() {
	sigs, unsubscribe := signalSource()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished) // also when a test's exitNow ends the goroutine
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			case <-sigs:
			}
			if n == 0 {
				p.interrupted()
				run.Interrupt()
				stopObserving()
				if reading := p.observing(); len(reading) > 0 && len(p.running()) == 0 {
					p.say(interruptObserving(reading, run.Awaiting()))
				} else {
					p.say(firstInterrupt(p.running(), run.Awaiting()))
				}
				continue
			}
			p.say(secondInterrupt(p.running()))
			if locks != nil {
				for _, k := range locks.releaseForExit(releaseOnExit, p.inFlightNow, p.say) {
					p.say(k.say(time.Now()))
				}
			}
			exitNow(exitInterrupted)
		}
	}()
	return func() {
		close(done)
		<-finished
		unsubscribe()
	}
}

// interruptObserving is the first interrupt's message while steps are
// being observed: observing only reads, so it stops rather than finishes.
// It names the requests it was waiting for, if any.
func interruptObserving(reading []string, awaiting []backends.Awaited) string {
	waiting := ""
	if len(awaiting) > 0 {
		waiting = ", which was waiting for " + waitingFor(awaiting)
	}
	return "site: interrupted: stopping the observation of " + strings.Join(reading, ", ") + waiting +
		" (it only reads: nothing was changed); " + interruptAgain()
}

// firstInterrupt is the first interrupt's message otherwise: the steps
// in flight, else the requests (taking a lock, reading ahead).
func firstInterrupt(running []string, awaiting []backends.Awaited) string {
	if len(running) == 0 && len(awaiting) > 0 {
		return "site: interrupted: starting nothing new; in flight: waiting for " + waitingFor(awaiting) + "; " + interruptAgain()
	}
	if len(running) == 0 {
		return "site: interrupted: starting nothing new (" + interruptAgain() + ")"
	}
	return "site: interrupted: finishing " + strings.Join(running, ", ") +
		" (in flight), starting nothing new; " + interruptAgain() + ", which may leave " + them(len(running)) + " half-done"
}

// interruptAgain says what a second interrupt does and how long it
// takes: up to releaseOnExit while a write in flight keeps its
// tenant's lock, at once otherwise, so "at once" would promise too
// much.
func interruptAgain() string {
	return fmt.Sprintf("interrupt again to exit within %s", releaseOnExit)
}

func secondInterrupt(running []string) string {
	if len(running) == 0 {
		return "site: interrupted again: exiting now; nothing was in flight"
	}
	return "site: interrupted again: exiting now; these steps may be half-done: " + strings.Join(running, ", ") +
		" (site diff shows where they stand; site apply converges them)"
}

// interruptedObserving is the error of a run whose observation ctx
// ended (err, from Engine.Plan): an interrupt says so in words, without
// Go's "context canceled"; any other end is named.
func interruptedObserving(err error, outcome string) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("observing was interrupted: %s", outcome)
	}
	return fmt.Errorf("observing was interrupted (%w): %s", err, outcome)
}
