package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// (Moved from cmd/site/prefetch_test.go with the reads ahead.)

// heldReads is a backends.Prefetcher whose reads each hold until the
// test takes their answer, as the real one holds until the observation
// takes it.
type heldReads struct {
	mu     sync.Mutex
	startc chan string
	taken  map[string]chan struct{}
}

func (h *heldReads) Plan(context.Context, *graph.Step, *backends.Run) (*backends.StepPlan, error) {
	return nil, errors.New("not observed here")
}

func (h *heldReads) Apply(context.Context, *backends.StepPlan, *backends.Run) (*backends.StepResult, error) {
	return nil, errors.New("not applied here")
}

func (h *heldReads) Prefetch(ctx context.Context, z *model.Zone, _ *backends.Run) func() {
	taken := make(chan struct{})
	h.mu.Lock()
	h.taken[z.Name] = taken
	h.mu.Unlock()
	return func() {
		h.startc <- z.Name
		select {
		case <-taken:
		case <-ctx.Done():
		}
	}
}

// TestReadsAheadHoldNoMoreThanParallelism: with --parallelism 2, two
// zones are read ahead at once and a third starts only when one of
// their answers is taken, so a diff of many big zones never holds more
// decoded answers than its observation would; the reads never taken
// end when the diff does.
func TestReadsAheadHoldNoMoreThanParallelism(t *testing.T) {
	h := &heldReads{startc: make(chan string, 8), taken: map[string]chan struct{}{}}
	p := newReadAhead(context.Background(), func(*model.Zone) backends.Prefetcher { return h }, runstate.Start(backends.NewRun()), nil, nil, 2, 0)
	zones := []string{"a.test.", "b.test.", "c.test.", "d.test."}
	for _, name := range zones {
		p.zone(&model.Zone{Name: name, Provider: model.Provider{PowerDNS: &model.PowerDNS{}}})
	}
	next := func() string {
		t.Helper()
		select {
		case z := <-h.startc:
			return z
		case <-time.After(20 * time.Second):
			t.Fatal("no read ahead started")
			return ""
		}
	}
	first := []string{next(), next()}
	select { // a negative check: a longer wait only makes it stricter
	case z := <-h.startc:
		t.Fatalf("read ahead of %s started while %v held their answers", z, first)
	case <-time.After(50 * time.Millisecond):
	}
	h.mu.Lock()
	close(h.taken[first[0]])
	h.mu.Unlock()
	third := next()
	if slices.Contains(first, third) {
		t.Fatalf("%s read ahead twice", third)
	}
	stopped := make(chan struct{})
	go func() { p.stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("stop did not end the reads nobody took")
	}
}
