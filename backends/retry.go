package backends

import (
	"context"
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
}

// Do runs try until it succeeds, fails with an error that is not
// transient, or has been tried r.Tries times, and returns the last
// try's error. A failed Sleep (the context ended) ends it with that
// error.
func (r Retry) Do(ctx context.Context, try func(context.Context) error) error {
	tries := r.Tries
	if tries <= 0 {
		tries = 3
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	for i := 1; ; i++ {
		err := try(ctx)
		if err == nil || i >= tries || r.Classify(err) != ClassTransient {
			return err
		}
		if err := sleep(ctx, r.wait(i, err)); err != nil {
			return err
		}
	}
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
