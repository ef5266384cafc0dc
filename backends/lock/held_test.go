package lock

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHeldErrorSaysWhatTheEntryIs: a run refused by another's entry is
// told whether that run applies the tenant (a hold) or is taking its
// lock (a claim: what a run cut off half-way through taking it leaves
// behind, having changed nothing), whose it is, until when it lasts and
// how to break it. A claim read as "being applied by another run", which
// sent the operator looking for an apply that was not running.
func TestHeldErrorSaysWhatTheEntryIs(t *testing.T) {
	for _, tc := range []struct {
		state string
		want  []string
		not   string
	}{
		{Held, []string{
			`tenant office1 is being applied by another run (host runner-A, pid 4242, started 2026-11-30T11:59:00Z, command "site apply tenants/office1.cue", lease until 2026-11-30T12:01:00Z) holding file `,
			"if that run is dead, wait for its lease to run out or break the lock with site unlock office1 --ack GATE-LOCK-BREAK",
		}, "claim"},
		{Claim, []string{
			`tenant office1's apply lock is being taken by another run (host runner-A, pid 4242, started 2026-11-30T11:59:00Z, command "site apply tenants/office1.cue", lease until 2026-11-30T12:01:00Z), whose claim in file `,
			"a run cut off while taking the lock leaves its claim behind, having changed nothing, until its lease runs out at 2026-11-30T12:01:00Z",
			"if that run is gone, break the claim with site unlock office1 --ack GATE-LOCK-BREAK",
		}, "being applied"},
	} {
		t.Run(tc.state, func(t *testing.T) {
			f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
			other := holder("A")
			other.Expires, other.State = t0.Add(time.Minute), tc.state
			b, _ := json.Marshal(other)
			if err := os.WriteFile(f.Path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Acquire(context.Background(), []Store{f}, holder("B"), Options{Now: fixedNow,
				Sleep: func(context.Context, time.Duration) error { return nil }})
			var he *HeldError
			if !errors.As(err, &he) {
				t.Fatalf("Acquire: %v, want a HeldError", err)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error lacks %q:\n%s", want, err)
				}
			}
			if strings.Contains(err.Error(), tc.not) {
				t.Errorf("the error says %q:\n%s", tc.not, err)
			}
		})
	}
}

// TestAcquireSaysEachTry: Options.Trying hears of every try before its
// first request, with the lease the try writes, so a caller that exits
// while a try is unanswered can name the entry it may leave behind.
func TestAcquireSaysEachTry(t *testing.T) {
	f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
	other := holder("A")
	other.Expires, other.State = t0.Add(time.Minute), Claim
	b, _ := json.Marshal(other)
	if err := os.WriteFile(f.Path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var tries []Holder
	_, err := Acquire(context.Background(), []Store{f}, holder("B"), Options{Now: fixedNow, Lease: 30 * time.Second,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Trying: func(h Holder) { tries = append(tries, h) }})
	if err == nil {
		t.Fatal("Acquire took the lock from a live claim")
	}
	if len(tries) != contendedRetries+1 {
		t.Errorf("Trying heard %d tries, want %d", len(tries), contendedRetries+1)
	}
	for _, h := range tries {
		if h.ID != tok("B") || !h.Expires.Equal(t0.Add(30*time.Second)) {
			t.Errorf("Trying heard %+v, want holder B with a lease until %s", h, t0.Add(30*time.Second))
		}
	}
}
