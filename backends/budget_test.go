package backends

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

func TestParseRatelimit(t *testing.T) {
	for _, tc := range []struct {
		in    string
		left  int
		reset time.Duration
		ok    bool
	}{
		{`"default";r=50;t=30`, 50, 30 * time.Second, true},
		{`"default";r=0;t=300`, 0, 300 * time.Second, true},
		{`"default"; r=7; t=2, "other";r=1;t=9`, 7, 2 * time.Second, true},
		{`"default";r=50`, 0, 0, false},
		{`"default";r=x;t=3`, 0, 0, false},
		{``, 0, 0, false},
	} {
		left, reset, ok := ParseRatelimit(tc.in)
		if left != tc.left || reset != tc.reset || ok != tc.ok {
			t.Errorf("ParseRatelimit(%q) = %d, %s, %v; want %d, %s, %v", tc.in, left, reset, ok, tc.left, tc.reset, tc.ok)
		}
	}
}

// TestBudgetHoldsWhatTheServerAsks: after an answer saying the server's
// quota is spent, or a 429 with Retry-After, no request is let through
// until then (a context far shorter than the wait ends the wait).
func TestBudgetHoldsWhatTheServerAsks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		held   bool
	}{
		{"quota left", http.StatusOK, http.Header{"Ratelimit": {`"default";r=1000;t=1`}}, false},
		{"quota spent", http.StatusOK, http.Header{"Ratelimit": {`"default";r=0;t=60`}}, true},
		{"429 retry-after", http.StatusTooManyRequests, http.Header{"Retry-After": {"60"}}, true},
		{"no headers", http.StatusOK, http.Header{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBudget(model.Rate{Requests: 1000, Per: time.Second})
			b.Observe(tc.status, tc.header)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done, err := b.Take(ctx)
			if err == nil {
				done()
			}
			if held := err != nil; held != tc.held {
				t.Errorf("held %v (%v), want %v", held, err, tc.held)
			}
		})
	}
}

// TestBudgetSlotsHeldWhileInFlight: a budget of 2 lets no third request
// go while two are out, however long ago they were sent.
func TestBudgetSlotsHeldWhileInFlight(t *testing.T) {
	b := NewBudget(model.Rate{Requests: 2, Per: time.Millisecond})
	var dones []func()
	for range 2 {
		d, err := b.Take(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Take(ctx); err == nil {
		t.Fatal("a third request went while two were in flight")
	}
	dones[0]()
	if d, err := b.Take(context.Background()); err != nil {
		t.Fatalf("after one answer: %v", err)
	} else {
		d()
	}
}

// TestRunBudgetIsOnePerProvider: every client of a provider in a run
// shares one budget; a provider without a rate has none.
func TestRunBudgetIsOnePerProvider(t *testing.T) {
	run := runstate.Start(NewRun())
	r := &model.Rate{Requests: 5, Per: time.Second}
	if run.Budget("a", r) != run.Budget("a", r) {
		t.Error("two clients of provider a got different budgets")
	}
	if run.Budget("a", r) == run.Budget("b", r) {
		t.Error("providers a and b share a budget")
	}
	if run.Budget("c", nil) != nil {
		t.Error("a provider without a rate got a budget")
	}
}
