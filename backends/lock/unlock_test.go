package lock

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnlock: site unlock lists the holder and whether its lease runs,
// changes nothing unless told to break, then breaks the entry; a lock
// nobody holds is said to be free.
func TestUnlock(t *testing.T) {
	ctx := context.Background()
	f := File{Path: filepath.Join(t.TempDir(), ".office1.lock"), Now: fixedNow}
	var out bytes.Buffer
	if n, err := Unlock(ctx, &out, "office1", f, true, t0); err != nil || n != 0 || !strings.Contains(out.String(), "tenant office1 is not locked: no lock entry in file ") {
		t.Fatalf("free lock: held %d, err %v, output %q", n, err, out.String())
	}
	h := holder("A")
	h.Expires = t0.Add(time.Minute)
	if err := writeNew(f.Path, h); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{t0, "lease still running: the holder may be alive"},
		{t0.Add(2 * time.Minute), "lease expired: the holder is taken for dead"},
	} {
		out.Reset()
		n, err := Unlock(ctx, &out, "office1", f, false, tc.now)
		if err != nil || n != 1 || !strings.Contains(out.String(), "tenant office1's apply lock:\n  - host runner-A") || !strings.Contains(out.String(), tc.want) {
			t.Errorf("dry run at %s: held %d, err %v, output %q; want one holder, %q", tc.now, n, err, out.String(), tc.want)
		}
		if hs, _ := f.Holders(ctx); len(hs) != 1 {
			t.Fatalf("dry run changed the lock: holders %v", hs)
		}
	}
	out.Reset()
	if n, err := Unlock(ctx, &out, "office1", f, true, t0); err != nil || n != 1 || !strings.HasSuffix(out.String(), "broke tenant office1's apply lock (1 entry).\n") {
		t.Fatalf("break: held %d, err %v, output %q", n, err, out.String())
	}
	if hs, _ := f.Holders(ctx); len(hs) != 0 {
		t.Errorf("after breaking, holders %v", hs)
	}
}

// TestSomePlaces: a lock in many places names three and counts the rest.
func TestSomePlaces(t *testing.T) {
	for _, tc := range []struct {
		where []string
		want  string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c and 2 more (5 places)"},
	} {
		if got := somePlaces(tc.where); got != tc.want {
			t.Errorf("somePlaces(%q) = %q, want %q", tc.where, got, tc.want)
		}
	}
}
