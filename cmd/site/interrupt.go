package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/site-tools/site/backends"
)

// What Ctrl-C (SIGINT) and SIGTERM do to diff and apply:
//
//   - The first one stops observing (reads only: nothing was changed)
//     and makes apply start nothing new, while every step in flight
//     finishes; a PowerDNS PATCH split at the body limit stops between
//     parts. site says at once what it is finishing, and apply then
//     prints its usual report with each step's true state ("applied
//     part 1 of 3", "not started") and exits 1.
//   - The second one exits at once with exitInterrupted, naming the
//     steps that were in flight and may be half-done.
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

// watchInterrupts handles the signals of one diff or apply: the first
// cancels observing and interrupts run, the second exits. Progress
// names what is in flight and carries the messages. The returned
// function stops watching.
func watchInterrupts(p *progress, run *backends.Run, stopObserving context.CancelFunc) func() {
	sigs, unsubscribe := signalSource()
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			case <-sigs:
			}
			if n == 0 {
				run.Interrupt()
				stopObserving()
				p.say(firstInterrupt(p.running()))
				continue
			}
			p.say(secondInterrupt(p.running()))
			exitNow(exitInterrupted)
		}
	}()
	return func() {
		close(done)
		unsubscribe()
	}
}

func firstInterrupt(running []string) string {
	if len(running) == 0 {
		return "site: interrupted: starting nothing new (interrupt again to exit at once)"
	}
	return "site: interrupted: finishing " + strings.Join(running, ", ") +
		" (in flight), starting nothing new; interrupt again to exit at once, which may leave " + them(len(running)) + " half-done"
}

func secondInterrupt(running []string) string {
	if len(running) == 0 {
		return "site: interrupted again: exiting now; nothing was in flight"
	}
	return "site: interrupted again: exiting now; these steps may be half-done: " + strings.Join(running, ", ") +
		" (site diff shows where they stand; site apply converges them)"
}
