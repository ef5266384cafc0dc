package backends

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry is the one bounded retry every backend uses: a call is tried
// again only while Classify calls its error ClassTransient, at most
// Tries times in all, waiting between tries a backoff that doubles from
// Backoff (capped at Max) of which up to half is random jitter, so that
// several runs against one recovering server do not come back in step.
//
// Use it only for calls that are safe to repeat: an observation, or an
// "ensure" whose repeat leaves the same result. A write that failed may
// have happened.
//
// Under a context that carries the run (WithRun), a call is not tried
// again once the run was interrupted, and a wait for the next try ends
// at the interrupt: after Ctrl-C or SIGTERM nothing is sent that was
// not on its way already.
type Retry struct {
	Tries    int           // tries in all; 0 means 3
	Backoff  time.Duration // the wait before the second try; 0 means 200 ms
	Max      time.Duration // the longest single wait; 0 means no cap
	Classify func(error) Class
	// After, when set and it returns more than 0 for a failure, is how
	// long the server asked to wait (an HTTP Retry-After), capped at Max.
	After func(error) time.Duration
	// Sleep waits between tries; nil waits on a timer and gives up when
	// ctx ends. Tests replace it to see the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Within bounds the whole of Do, every try and every wait: a try's
	// context ends there, with a cause the transport names (see
	// deadline.go), and no wait that would pass it is begun. 0: no
	// bound but ctx's.
	Within time.Duration
}

// Do runs try until it succeeds, fails with an error that is not
// transient, has been tried r.Tries times, or the run was interrupted,
// and returns the last try's error. A failed Sleep (the context ended)
// ends it with that error; Within ending it returns the last try's
// error as a *NoAnswerError when the transport did not name it so.
func (r Retry) Do(ctx context.Context, try func(context.Context) error) error {
	tries := r.Tries
	if tries <= 0 {
		tries = 3
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	if r.Within > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.Within, &requestDeadline{r.Within})
		defer cancel()
	}
	run := RunOf(ctx)
	for i := 1; ; i++ {
		err := try(ctx)
		if err == nil {
			return nil
		}
		if within, ok := deadlineOf(ctx); ok {
			if !errors.As(err, new(*NoAnswerError)) {
				err = &NoAnswerError{Within: within, Err: err}
			}
			return err
		}
		if i >= tries || r.Classify(err) != ClassTransient {
			return err
		}
		if run.Interrupted() {
			return &NotRetriedError{Err: err}
		}
		wait := r.wait(i, err)
		if end, ok := ctx.Deadline(); ok && time.Until(end) < wait {
			return err // the next try could not begin in time
		}
		serr := r.sleepUnlessInterrupted(ctx, run, sleep, wait)
		if run.Interrupted() {
			// Also when the wait ended well: a Sleep that does not end
			// at the interrupt must not lead to another try.
			return &NotRetriedError{Err: err}
		}
		if serr != nil {
			return serr
		}
	}
}

// NotRetriedError is a transient failure that was not tried again
// because the run was interrupted.
type NotRetriedError struct{ Err error }

func (e *NotRetriedError) Error() string {
	return fmt.Sprintf("%v; not tried again: the run was interrupted", e.Err)
}

func (e *NotRetriedError) Unwrap() error { return e.Err }

// sleepUnlessInterrupted is sleep(ctx, d), ended early by run's
// interrupt (run may be nil).
func (r Retry) sleepUnlessInterrupted(ctx context.Context, run *Run, sleep func(context.Context, time.Duration) error, d time.Duration) error {
	if run == nil {
		return sleep(ctx, d)
	}
	ctx, stop := run.ReadContext(ctx)
	defer stop()
	return sleep(ctx, d)
}

// wait is how long to wait after the given failed try (1-based).
func (r Retry) wait(try int, err error) time.Duration {
	if r.After != nil {
		if d := r.After(err); d > 0 {
			if r.Max > 0 {
				d = min(d, r.Max)
			}
			return d
		}
	}
	d := r.Backoff
	if d <= 0 {
		d = 200 * time.Millisecond
	}
	d <<= min(try-1, 16)
	if r.Max > 0 {
		d = min(d, r.Max)
	}
	return d/2 + rand.N(d/2+1)
}

// Sleep waits d, or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gave up waiting to retry: %w", ctx.Err())
	}
}
