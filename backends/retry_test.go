package backends

import (
	"context"
	"errors"
	"testing"
	"time"
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
