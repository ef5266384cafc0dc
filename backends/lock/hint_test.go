package lock

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/hint"
)

// TestHeldErrorHint: a run refused by another's lock is told, as a
// typed hint naming the tenant, to wait or break the lock, and whether
// what it met is a hold or a claim being taken.
func TestHeldErrorHint(t *testing.T) {
	live := Holder{ID: tok("A"), Host: "runner-A", PID: 4242, Start: t0.Add(-time.Minute), Expires: t0.Add(time.Second)}
	f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
	b, _ := json.Marshal(live)
	if err := os.WriteFile(f.Path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, held := Acquire(context.Background(), []Store{f}, holder("B"), Options{Now: fixedNow})
	claimed := live
	claimed.State = Claim
	tests := []struct {
		name string
		err  error
		want hint.Hint
	}{
		{"held", held, hint.Hint{Kind: hint.WaitOrUnlock, Tenant: "office1"}},
		{"claimed", &HeldError{Tenant: "office2", Holder: claimed, Where: "the lock file"}, hint.Hint{Kind: hint.WaitOrUnlock, Tenant: "office2", Claim: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := hint.Of(tc.err); got != tc.want {
				t.Fatalf("hint.Of(%v) = %+v, want %+v", tc.err, got, tc.want)
			}
			if !strings.HasSuffix(tc.err.Error(), ": "+tc.want.Render()) {
				t.Errorf("text %q does not end with the hint", tc.err)
			}
		})
	}
}
