package engine

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// testSet is a Backends of testDriver whose tenants' apply locks are
// files in dir; its listing notes which lock files exist when it runs.
type testSet struct {
	d        *testDriver
	dir      string
	mu       sync.Mutex
	atListed []string // lock files present when Discover listed
	closed   bool
}

func (s *testSet) Discover(ctx context.Context, reading func(string) func()) func(*graph.Graph) ([]*graph.Step, error) {
	return func(*graph.Graph) ([]*graph.Step, error) {
		defer reading("listing")()
		names, _ := filepath.Glob(filepath.Join(s.dir, "*.lock"))
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, n := range names {
			s.atListed = append(s.atListed, filepath.Base(n))
		}
		return nil, nil
	}
}
func (s *testSet) DriverFor(*graph.Step) (backends.Driver, error) { return s.d, nil }
func (s *testSet) Check(*graph.Graph) error                       { return nil }
func (s *testSet) ForgetDiscovered()                              {}
func (s *testSet) LockStore(_ context.Context, t *model.Tenant, _ *backends.Run, _ []string) (lock.Store, error) {
	return lock.File{Path: filepath.Join(s.dir, t.Name+".lock")}, nil
}
func (s *testSet) Prefetcher(*model.Zone) backends.Prefetcher { return nil }
func (s *testSet) Close() error                               { s.closed = true; return nil }

// events is a SessionHook that keeps the events' lines.
type events struct {
	mu    sync.Mutex
	lines []string
}

func (e *events) PlanStart(int)                                      {}
func (e *events) Observed(string, *backends.StepPlan, *plan.Blocked) {}
func (e *events) PlanDone(*Observation)                              {}
func (e *events) ApplyStart(int)                                     {}
func (e *events) Started(string)                                     {}
func (e *events) Applied(StepReport)                                 {}
func (e *events) ApplyDone(*Report)                                  {}
func (e *events) Notify(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, ev.String())
}

func (e *events) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.lines, "\n")
}

func lockFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.lock"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func openTestSession(t *testing.T) (*Session, *testSet, *events, *graph.Graph) {
	g := mustGraph(t, testSpec())
	set := &testSet{d: newTestDriver(creates(stepNet, stepVM, stepZoneA, stepZoneB)), dir: t.TempDir()}
	ev := &events{}
	s := Open(context.Background(), set, runstate.Start(backends.NewRun()), Options{Apply: true, Hook: ev, Command: "site apply", ExitWithin: time.Minute})
	return s, set, ev, g
}

// TestSessionLocksBeforeTheListing: an applying session takes every
// tenant's apply lock before the listing of what they no longer
// declare (the first slow read), holds them through the apply, and
// lets go of them, and of the backends, when it closes.
func TestSessionLocksBeforeTheListing(t *testing.T) {
	s, set, _, g := openTestSession(t)
	if _, err := s.DiscoverLocked(nil)(g); err != nil || s.LockErr() != nil {
		t.Fatalf("listing: %v, lock: %v", err, s.LockErr())
	}
	if strings.Join(set.atListed, " ") != "a.lock b.lock" {
		t.Errorf("lock files when the listing ran: %q, want both tenants' locks", set.atListed)
	}
	if err := s.Lock(g); err != nil {
		t.Fatal(err)
	}
	obs, err := s.Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(g, obs); err != nil {
		t.Fatal(err)
	}
	if n := len(lockFiles(t, set.dir)); n != 2 {
		t.Errorf("%d lock files after the apply, want both still held", n)
	}
	s.Close()
	if left := lockFiles(t, set.dir); len(left) != 0 || !set.closed {
		t.Errorf("after Close: lock files %q, backends closed %v; want none and closed", left, set.closed)
	}
}

// TestSessionSecondInterruptReleasesIdleLocks: a second interrupt with
// no step in flight lets go of every lock at once, keeps none, and the
// session takes no lock after it.
func TestSessionSecondInterruptReleasesIdleLocks(t *testing.T) {
	s, set, ev, g := openTestSession(t)
	defer s.Close()
	if err := s.Lock(g); err != nil {
		t.Fatal(err)
	}
	s.Interrupt()
	s.InterruptAgain()
	if left := lockFiles(t, set.dir); len(left) != 0 {
		t.Errorf("lock files %q after the second interrupt, want none", left)
	}
	for _, want := range []string{"site: interrupted: starting nothing new", "site: interrupted again: exiting now; nothing was in flight"} {
		if !strings.Contains(ev.text(), want) {
			t.Errorf("events lack %q:\n%s", want, ev.text())
		}
	}
	if strings.Contains(ev.text(), "stays held") {
		t.Errorf("a lock was kept:\n%s", ev.text())
	}
	if err := s.Lock(g); err == nil || len(lockFiles(t, set.dir)) != 0 {
		t.Errorf("Lock after the second interrupt: %v, lock files %q; want an error and none", err, lockFiles(t, set.dir))
	}
	if _, ok := s.locks.taking("a", nil); ok {
		t.Error("the session may still take a lock after the second interrupt")
	}
}
