package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
)

// (Moved from cmd/site: interrupt_test.go and progress_test.go, with
// the interrupt's words and the tracking of what is in flight.)

// TestInterruptMessagesCountTheSteps: the first interrupt's message
// says "it" of one step in flight and "them" of several.
func TestInterruptMessagesCountTheSteps(t *testing.T) {
	for _, c := range []struct {
		running []string
		want    string
	}{
		{[]string{"dns/a."}, "finishing dns/a. (in flight), starting nothing new; interrupt again to exit within 2s, which may leave it half-done"},
		{[]string{"dns/a.", "dns/b."}, "finishing dns/a., dns/b. (in flight), starting nothing new; interrupt again to exit within 2s, which may leave them half-done"},
	} {
		if got := (Interrupted{Running: c.running, Within: 2 * time.Second}).String(); !strings.HasSuffix(got, c.want) {
			t.Errorf("Interrupted{Running: %q} = %q, want it to end %q", c.running, got, c.want)
		}
	}
}

// TestProgressObserving: the steps being observed are known until each
// is reported, so a first Ctrl-C can name what it stops.
func TestProgressObserving(t *testing.T) {
	p := newTracker(nil)
	p.PlanStart(2)
	p.Observing("vm/test:///default/web")
	p.Observing("dns/a.example.")
	p.Observed("dns/a.example.", &backends.StepPlan{}, nil)
	if got := p.observing(); !slices.Equal(got, []string{"vm/test:///default/web"}) {
		t.Errorf("observing: got %q, want the VM alone", got)
	}
	want := "site: interrupted: stopping the observation of vm/test:///default/web (it only reads: nothing was changed); interrupt again to exit within 2s"
	if got := (Interrupted{Observing: p.observing(), Within: 2 * time.Second}).String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
