package backends

import (
	"context"
	"errors"
	"testing"

	"github.com/site-tools/site/backends/internal/runstate"
)

// TestReadContext: an interrupt cancels a read context with cause
// ErrInterrupted; cancelling the parent or the context itself does so
// with the parent's cause, and the run stays uninterrupted.
func TestReadContext(t *testing.T) {
	tests := []struct {
		name      string
		end       func(run *Run, parent context.CancelFunc, stop context.CancelFunc)
		wantCause error
		wantRun   bool
	}{
		{"interrupt", func(run *Run, _, _ context.CancelFunc) {
			runstate.Interrupts(run).Interrupt()
			runstate.Interrupts(run).Interrupt()
		}, ErrInterrupted, true},
		{"parent cancelled", func(_ *Run, parent, _ context.CancelFunc) { parent() }, context.Canceled, false},
		{"stopped", func(_ *Run, _, stop context.CancelFunc) { stop() }, context.Canceled, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(&Run{}) // a literal, as tests make them
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			ctx, stop := run.ReadContext(parent)
			defer stop()
			if ctx.Err() != nil {
				t.Fatal("cancelled before anything ended it")
			}
			tc.end(run, cancel, stop)
			<-ctx.Done()
			if got := context.Cause(ctx); !errors.Is(got, tc.wantCause) {
				t.Errorf("cause %v, want %v", got, tc.wantCause)
			}
			if run.Interrupted() != tc.wantRun {
				t.Errorf("Interrupted() = %v, want %v", run.Interrupted(), tc.wantRun)
			}
		})
	}
}

// TestReadContextAfterInterrupt: a read context made after the
// interrupt starts cancelled.
func TestReadContextAfterInterrupt(t *testing.T) {
	run := runstate.Start(NewRun())
	runstate.Interrupts(run).Interrupt()
	ctx, stop := run.ReadContext(context.Background())
	defer stop()
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), ErrInterrupted) {
		t.Errorf("cause %v, want ErrInterrupted", context.Cause(ctx))
	}
}
