package engine

import (
	"maps"
	"slices"
	"sync"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

// tracker is the Hook a Session gives its Engine: it keeps which steps
// are being observed and which are in flight, for an interrupt to name
// them and for the exit of a second one to wait for them, and passes
// every call on to the session's own hook. The engine calls it one
// step at a time; the lock is for the interrupt, which asks from
// another goroutine.
type tracker struct {
	mu       sync.Mutex
	inFlight map[string]bool // steps handed to a backend, not yet finished
	// stepDone is closed, and replaced, whenever a step finishes: the
	// exit of a second interrupt waits on it for the steps in flight.
	stepDone chan struct{}
	reading  map[string]bool // steps being observed
	next     SessionHook
}

func newTracker(next SessionHook) *tracker {
	return &tracker{inFlight: map[string]bool{}, reading: map[string]bool{}, stepDone: make(chan struct{}), next: next}
}

func (t *tracker) PlanStart(total int) {
	if t.next != nil {
		t.next.PlanStart(total)
	}
}

// Observing keeps the steps being observed, which an interrupt names.
func (t *tracker) Observing(id string) {
	t.mu.Lock()
	t.reading[id] = true
	t.mu.Unlock()
	if oh, ok := t.next.(ObservingHook); ok {
		oh.Observing(id)
	}
}

func (t *tracker) Observed(id string, sp *backends.StepPlan, b *plan.Blocked) {
	t.mu.Lock()
	delete(t.reading, id)
	t.mu.Unlock()
	if t.next != nil {
		t.next.Observed(id, sp, b)
	}
}

func (t *tracker) PlanDone(obs *Observation) {
	if t.next != nil {
		t.next.PlanDone(obs)
	}
}

func (t *tracker) ApplyStart(total int) {
	if t.next != nil {
		t.next.ApplyStart(total)
	}
}

// Started and Applied keep the set of steps in flight.
func (t *tracker) Started(id string) {
	t.mu.Lock()
	t.inFlight[id] = true
	t.mu.Unlock()
	if t.next != nil {
		t.next.Started(id)
	}
}

func (t *tracker) Applied(r StepReport) {
	t.mu.Lock()
	delete(t.inFlight, r.Step)
	close(t.stepDone)
	t.stepDone = make(chan struct{})
	t.mu.Unlock()
	if t.next != nil {
		t.next.Applied(r)
	}
}

func (t *tracker) ApplyDone(rep *Report) {
	if t.next != nil {
		t.next.ApplyDone(rep)
	}
}

// listing names work that only reads outside any step (what the tenants
// no longer declare, a tenant's apply lock), for an interrupt's
// message, until done is called.
func (t *tracker) listing(what string) (done func()) {
	t.mu.Lock()
	t.reading[what] = true
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.reading, what)
	}
}

// observing lists, sorted, the steps being observed.
func (t *tracker) observing() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.reading))
}

// running returns the steps in flight, sorted.
func (t *tracker) running() []string {
	ids, _ := t.inFlightNow()
	return ids
}

// inFlightNow returns the steps in flight, sorted, and a channel
// closed when a step next finishes.
func (t *tracker) inFlightNow() ([]string, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.inFlight)), t.stepDone
}
