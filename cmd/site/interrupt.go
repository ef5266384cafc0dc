package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
)

// Ctrl-C (SIGINT) and SIGTERM: the first stops observing and starts
// nothing new, the second exits with exitInterrupted within
// releaseOnExit, after the engine let go of apply's locks (help topic
// "interrupts"; backends/engine/interrupt.go says what each does). This
// file only owns the signals and the exit.

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

// interruptible is what the signals of one command stop.
type interruptible interface {
	Interrupt()
	InterruptAgain()
}

// watchInterrupts hands the signals of one diff or apply to s (first:
// Interrupt, second: InterruptAgain, then the exit). The returned
// function stops watching; once the second signal came it returns only
// after the exit (never, but in tests), so the run cannot release the
// locks beside it, nor end with a code of its own.
//
// A command that only reads outside a session (site leftovers) passes
// s nil, with the run to interrupt and the reads to stop.
func watchInterrupts(p interface{ Notify(engine.Event) }, run *backends.Run, stopReading context.CancelFunc, s *engine.Session) func() {
	var target interruptible = s
	if s == nil {
		target = engine.Reads{Run: run, Stop: stopReading, Hook: p, Within: releaseOnExit}
	}
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
				target.Interrupt()
				continue
			}
			target.InterruptAgain()
			exitNow(exitInterrupted)
		}
	}()
	return func() {
		close(done)
		<-finished
		unsubscribe()
	}
}
