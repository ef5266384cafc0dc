package backends

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/internal/runstate"
)

var errTransient, errConflict = errors.New("no answer"), errors.New("exists")

func classifyTest(err error) Class {
	switch {
	case errors.Is(err, errTransient):
		return ClassTransient
	case errors.Is(err, errConflict):
		return ClassConflict
	}
	return ""
}

// TestRetry: only transient errors are retried, at most Tries times,
// waiting a doubling backoff with up to half jitter, capped at Max, or
// what After asks.
func TestRetry(t *testing.T) {
	tests := []struct {
		name      string
		r         Retry
		fails     []error // one per try; past the end the try succeeds
		wantTries int
		wantErr   error
		// wantWaits are the waits' upper bounds; each wait must be at
		// least half of it, or exactly it with exact.
		wantWaits []time.Duration
		exact     bool
	}{
		{name: "succeeds at once", wantTries: 1},
		{name: "transient then success", fails: []error{errTransient}, wantTries: 2,
			wantWaits: []time.Duration{200 * time.Millisecond}},
		{name: "transient until the default bound", fails: []error{errTransient, errTransient, errTransient, errTransient},
			wantTries: 3, wantErr: errTransient, wantWaits: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}},
		{name: "conflict is not retried", fails: []error{errConflict}, wantTries: 1, wantErr: errConflict},
		{name: "unclassified is not retried", fails: []error{errors.New("site's own")}, wantTries: 1, wantErr: errors.New("")},
		{name: "backoff doubles up to Max", r: Retry{Tries: 4, Backoff: time.Second, Max: 3 * time.Second},
			fails: []error{errTransient, errTransient, errTransient, errTransient}, wantTries: 4, wantErr: errTransient,
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}},
		{name: "After is honoured, capped at Max", r: Retry{Tries: 3, Max: 5 * time.Second,
			After: func(error) time.Duration { return 7 * time.Second }},
			fails: []error{errTransient}, wantTries: 2, wantWaits: []time.Duration{5 * time.Second}, exact: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits []time.Duration
			r := tt.r
			r.Classify = classifyTest
			r.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			tries := 0
			err := r.Do(context.Background(), func(context.Context) error {
				tries++
				if tries <= len(tt.fails) {
					return tt.fails[tries-1]
				}
				return nil
			})
			if tries != tt.wantTries {
				t.Errorf("got %d tries, want %d", tries, tt.wantTries)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("got error %v, want none", err)
			case tt.wantErr != nil && err == nil:
				t.Errorf("got no error, want %v", tt.wantErr)
			case tt.wantErr != nil && classifyTest(tt.wantErr) != "" && !errors.Is(err, tt.wantErr):
				t.Errorf("got %v, want the last try's error %v", err, tt.wantErr)
			}
			if len(waits) != len(tt.wantWaits) {
				t.Fatalf("got waits %v, want %d", waits, len(tt.wantWaits))
			}
			for i, w := range waits {
				hi, lo := tt.wantWaits[i], tt.wantWaits[i]/2
				if tt.exact {
					lo = hi
				}
				if w < lo || w > hi {
					t.Errorf("wait %d: got %v, want between %v and %v", i, w, lo, hi)
				}
			}
		})
	}
}

// TestRetryStopsWhenSleepFails: a context that ends while waiting ends
// the retry with the wait's error, without another try.
func TestRetryStopsWhenSleepFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tries := 0
	err := Retry{Classify: classifyTest, Backoff: time.Hour}.Do(ctx, func(context.Context) error {
		tries++
		return errTransient
	})
	if tries != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("got %d tries and %v, want 1 try and context.Canceled", tries, err)
	}
}

// TestRetryAfterAnInterrupt: once the run that the context carries is
// interrupted, a transient failure is not tried again, whether the
// interrupt came during the try or during the wait for the next one
// (issue 27: a PATCH part re-sent twice after Ctrl-C).
func TestRetryAfterAnInterrupt(t *testing.T) {
	tests := []struct {
		name      string
		interrupt func(run *Run, try int) // called in each try, and while waiting
		inWait    bool
		wantTries int
	}{
		{"not interrupted", func(*Run, int) {}, false, 3},
		{"interrupted during the first try", func(run *Run, try int) {
			if try == 1 {
				runstate.Interrupts(run).Interrupt()
			}
		}, false, 1},
		{"interrupted while waiting to retry", func(run *Run, _ int) { runstate.Interrupts(run).Interrupt() }, true, 1},
		// A driver's own Sleep (libvirt's, in its tests) may not watch
		// the context: the wait ends well, and still no try follows.
		{"interrupted while a Sleep blind to it waits", func(run *Run, _ int) { runstate.Interrupts(run).Interrupt() }, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(&Run{})
			tries := 0
			r := Retry{Classify: classifyTest, Backoff: time.Millisecond}
			if tc.inWait {
				r.Backoff = time.Hour
				r.Sleep = func(ctx context.Context, d time.Duration) error {
					tc.interrupt(run, tries)
					if strings.Contains(tc.name, "blind") {
						return nil
					}
					return Sleep(ctx, d) // ends at the interrupt, not in an hour
				}
			}
			err := r.Do(WithRun(context.Background(), run), func(context.Context) error {
				tries++
				if !tc.inWait {
					tc.interrupt(run, tries)
				}
				return errTransient
			})
			if tries != tc.wantTries {
				t.Errorf("got %d tries, want %d", tries, tc.wantTries)
			}
			if !errors.Is(err, errTransient) {
				t.Errorf("got %v, want the try's own error", err)
			}
			if interrupted := errors.As(err, new(*NotRetriedError)); interrupted != (tc.wantTries == 1) {
				t.Errorf("error %q: says it was not retried for the interrupt: %v, want %v", err, interrupted, tc.wantTries == 1)
			}
		})
	}
}

// TestRetryWithin: Within ends the tries of a request that gets no
// answer, with a *NoAnswerError naming the setting; a try that cannot
// begin before it is not begun.
func TestRetryWithin(t *testing.T) {
	tests := []struct {
		name      string
		r         Retry
		wantTries int
	}{
		// Each try waits for an answer that never comes: the first
		// uses all of Within.
		{"a try that hangs", Retry{Tries: 5, Within: 50 * time.Millisecond, Backoff: time.Millisecond}, 1},
		// The first try fails at once; the wait for the second would
		// pass Within, so there is none.
		{"a wait past the deadline", Retry{Tries: 5, Within: time.Hour, Backoff: 2 * time.Hour}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			r := tc.r
			r.Classify = classifyTest
			err := r.Do(context.Background(), func(ctx context.Context) error {
				tries++
				if r.Backoff > r.Within {
					return errTransient
				}
				<-ctx.Done()
				return errors.Join(errTransient, ctx.Err())
			})
			if tries != tc.wantTries {
				t.Errorf("got %d tries, want %d", tries, tc.wantTries)
			}
			var na *NoAnswerError
			hung := r.Backoff < r.Within
			if errors.As(err, &na) != hung {
				t.Fatalf("got %v (%T), want a *NoAnswerError: %v", err, err, hung)
			}
			if hung && (na.Within != r.Within || !strings.Contains(err.Error(), RequestTimeoutSetting)) {
				t.Errorf("got %q, want it to name %s %s", err, RequestTimeoutSetting, r.Within)
			}
		})
	}
}
