package backends

import (
	"context"
	"errors"
	"fmt"

	"github.com/site-tools/site/compiler/hint"
)

// An interrupted run (Ctrl-C) finishes what is in flight and starts
// nothing new. The context a driver's writes get is not cancelled by the
// interrupt, since cancelling half a batch leaves a zone or a guest in a
// state nobody planned; instead a driver that sends a step in several
// requests (a PowerDNS PATCH split at the body limit) asks
// Run.Interrupted between them and stops with a *PartialError, so the
// report can say which parts were applied.

// ErrInterrupted means the run was interrupted before the work could
// start.
var ErrInterrupted = errors.New("the run was interrupted")

// ReadContext returns a context that an interrupt cancels, with cause
// ErrInterrupted, for work that only reads once a step's writes are
// done (verifying them over DNS): stopping it leaves nothing half-made,
// so the user who pressed Ctrl-C need not wait for it.
func (r *Run) ReadContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := r.state.Done()
	go func() {
		select {
		case <-done:
			cancel(ErrInterrupted)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// Interrupted reports whether the engine interrupted the run
// (runstate.State.Interrupt); never for a nil r.
func (r *Run) Interrupted() bool { return r != nil && r.state.Interrupted() }

// PartialError means a step's write went out in parts and only the
// first Applied of Total were made: the live system holds part of the
// step's changes. Err says why the rest was not (ErrInterrupted, or the
// failure of part Applied+1). A re-run converges from there.
type PartialError struct {
	Applied, Total int
	Err            error
}

func (e *PartialError) Error() string {
	if errors.Is(e.Err, ErrInterrupted) {
		return fmt.Sprintf("%s; interrupted before part %d, which was not sent: %s", e.Progress(), e.Applied+1, e.Hint().Render())
	}
	return fmt.Sprintf("%s; part %d failed: %v; %s", e.Progress(), e.Applied+1, e.Err, e.Hint().Render())
}

// Hint is a partial write's advice: a later run converges from there.
func (e *PartialError) Hint() hint.Hint { return hint.Hint{Kind: hint.RunAgain} }

func (e *PartialError) Unwrap() error { return e.Err }

// Progress says what was applied, e.g. "applied part 1 of 3".
func (e *PartialError) Progress() string {
	if e.Applied == 1 {
		return fmt.Sprintf("applied part 1 of %d", e.Total)
	}
	return fmt.Sprintf("applied parts 1 to %d of %d", e.Applied, e.Total)
}

// runKey carries a *Run in a context (WithRun).
type runKey struct{}

// WithRun returns ctx carrying run, for the code under a driver's
// Plan or Apply that gets a context and no run: Retry.Do sends no
// further try once run is interrupted, and takes run's
// RequestTimeout (RequestTimeoutOf).
func WithRun(ctx context.Context, run *Run) context.Context {
	if run == nil || RunOf(ctx) == run {
		return ctx
	}
	return context.WithValue(ctx, runKey{}, run)
}

// RunOf returns the run ctx carries (WithRun), or nil.
func RunOf(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}
