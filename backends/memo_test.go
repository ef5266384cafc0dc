package backends

import (
	"errors"
	"testing"

	"github.com/site-tools/site/backends/internal/runstate"
)

// TestMemo: Once computes a key once; Known tells what it computed
// without computing; what Leave leaves is taken once.
func TestMemo(t *testing.T) {
	r := runstate.Start(NewRun())
	if _, _, ok := runstate.Memos(r).Known("list"); ok {
		t.Fatal("Known before any Once: ok, want not known")
	}
	calls := 0
	for range 2 {
		if v, err := runstate.Memos(r).Once("list", func() (any, error) { calls++; return "zones", nil }); v != "zones" || err != nil {
			t.Fatalf("Once: %v, %v", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("Once computed %d times, want 1", calls)
	}
	if v, err, ok := runstate.Memos(r).Known("list"); !ok || v != "zones" || err != nil {
		t.Errorf("Known after Once: %v, %v, %v; want zones", v, err, ok)
	}
	failed := errors.New("refused")
	_, _ = runstate.Memos(r).Once("broken", func() (any, error) { return nil, failed })
	if _, err, ok := runstate.Memos(r).Known("broken"); !ok || !errors.Is(err, failed) {
		t.Errorf("Known of a failed Once: %v, %v; want its error", err, ok)
	}

	runstate.Memos(r).Leave("zone", 7)
	if v, ok := runstate.Memos(r).Take("zone"); !ok || v != 7 {
		t.Errorf("Take: %v, %v; want what was left", v, ok)
	}
	if _, ok := runstate.Memos(r).Take("zone"); ok {
		t.Error("a second Take found it again, want it taken once")
	}
}
