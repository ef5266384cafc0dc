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

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

func holder(id string) Holder {
	return Holder{ID: tok(id), Tenant: "office1", Host: "runner-" + id, PID: 4242, Start: t0.Add(-time.Minute), Command: "site apply tenants/office1.cue"}
}

func TestFileLock(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// before is the lock file's holder before the run, if any.
		before  *Holder
		wantErr string // "" when the run gets the lock
	}{
		{name: "free", before: nil},
		{name: "held by a live run", before: &Holder{ID: tok("A"), Host: "runner-A", PID: 4242, Start: t0.Add(-time.Minute), Command: "site apply tenants/office1.cue", Expires: t0.Add(time.Second)},
			wantErr: `tenant office1 is being applied by another run (host runner-A, pid 4242, started 2026-11-30T11:59:00Z, command "site apply tenants/office1.cue", lease until 2026-11-30T12:00:01Z)`},
		{name: "dead holder's lease has run out", before: &Holder{ID: tok("A"), Host: "runner-A", PID: 4242, Expires: t0.Add(-time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
			if tt.before != nil {
				b, _ := json.Marshal(tt.before)
				if err := os.WriteFile(f.Path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Acquire(ctx, []Store{f}, holder("B"), Options{Now: fixedNow})
			if tt.wantErr != "" {
				var he *HeldError
				if !errors.As(err, &he) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want a HeldError containing %q", err, tt.wantErr)
				}
				if hs, _ := f.Holders(ctx); len(hs) != 1 || hs[0].ID != tt.before.ID {
					t.Errorf("the live holder's file changed: %+v", hs)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire: %v", err)
			}
			if tt.before != nil && (len(l.TakenOver) != 1 || l.TakenOver[0].ID != tt.before.ID) || tt.before == nil && len(l.TakenOver) != 0 {
				t.Errorf("TakenOver = %+v, want the dead holder (if any)", l.TakenOver)
			}
			hs, _ := f.Holders(ctx)
			if len(hs) != 1 || hs[0].ID != tok("B") || hs[0].Host != "runner-B" || !hs[0].Expires.Equal(t0.Add(DefaultLease)) {
				t.Errorf("lock file holds %+v, want holder B with a lease of %s", hs, DefaultLease)
			}
			if _, err := Acquire(ctx, []Store{f}, holder("C"), Options{Now: fixedNow}); err == nil {
				t.Fatal("a second run got the lock B holds")
			}
			if err := l.Release(ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
				t.Errorf("the lock file is still there after Release: %v", err)
			}
		})
	}
}

// TestWaitForHolder waits (--lock-timeout) while the holder finishes:
// the clock and the sleep are the test's, so nothing depends on timing.
func TestWaitForHolder(t *testing.T) {
	ctx := context.Background()
	f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
	first, err := Acquire(ctx, []Store{f}, holder("A"), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	slept := 0
	var told []string
	o := Options{Wait: 10 * time.Second, Now: func() time.Time { return now }, Sleep: func(context.Context, time.Duration) error {
		slept++
		now = now.Add(time.Second)
		if slept == 3 {
			return first.Release(ctx)
		}
		return nil
	}, Waiting: func(other Holder, where string) { told = append(told, other.Host+" in "+where) }}
	second, err := Acquire(ctx, []Store{f}, holder("B"), o)
	if err != nil || slept != 3 {
		t.Fatalf("Acquire after %d waits: %v; want the lock once the first run released it", slept, err)
	}
	// The wait is said once, as it starts, naming the holder.
	if want := "runner-A in " + f.Where(); len(told) != 1 || told[0] != want {
		t.Errorf("Waiting was called with %q, want once with %q", told, want)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// Held for longer than --lock-timeout: the error says how long it waited.
	first, _ = Acquire(ctx, []Store{f}, holder("A"), Options{Now: fixedNow})
	defer first.Release(ctx)
	now, o.Sleep = t0, func(context.Context, time.Duration) error { now = now.Add(time.Second); return nil }
	_, err = Acquire(ctx, []Store{f}, holder("B"), o)
	if err == nil || !strings.Contains(err.Error(), "waited 10s (--lock-timeout)") {
		t.Errorf("got %v, want it to say it waited 10s", err)
	}

	// A sleep that ends with an error (the user pressed Ctrl-C) ends the
	// wait with it at once.
	stopped := errors.New("interrupted")
	now, slept = t0, 0
	o.Sleep = func(context.Context, time.Duration) error { slept++; return stopped }
	if _, err := Acquire(ctx, []Store{f}, holder("B"), o); !errors.Is(err, stopped) || slept != 1 {
		t.Errorf("Acquire whose sleep failed after %d sleeps: %v, want %v after one", slept, err, stopped)
	}
	// Without a wait there is nothing to say.
	told = nil
	if _, err := Acquire(ctx, []Store{f}, holder("B"), Options{Now: fixedNow, Waiting: o.Waiting}); err == nil || len(told) != 0 {
		t.Errorf("--lock-timeout 0: %v, told %q; want a HeldError and nothing said", err, told)
	}
}

// tok is an ID as NewHolder makes it, spelt from s ("A": 16 A's), so
// that tests name holders by a letter.
func tok(s string) string { return strings.Repeat(s, 16/len(s)) }
