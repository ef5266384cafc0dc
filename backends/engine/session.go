package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/site-tools/site/backends/internal/runstate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// A Session is one run of site diff or site apply, from the backends it
// opens to their close: it reads zones ahead while the specs load,
// hands the loader what lists the steps only observing names, takes
// each tenant's apply lock before the first slow read (apply), renews
// and releases it, observes, applies, and handles interrupts. It says
// what a person should hear only through its hook's events (Notify),
// and keeps no words of the command's:
//
//	s := engine.Open(ctx, set, run, engine.Options{Apply: true, Hook: view, ...})
//	defer s.Close()
//	g, err := load(..., s.DiscoverLocked(targets)) // cmd loads the specs
//	err = s.Lock(g)
//	obs, err := s.Plan(g)
//	rep, err := s.Apply(g, obs)
//
// Interrupt and InterruptAgain are the first and second Ctrl-C (or
// SIGTERM): the caller owns the signals and the exit.
type Session struct {
	o   Options
	bk  Backends
	run *backends.Run
	eng *Engine
	// ctx is what writes use: never cancelled by an interrupt, which
	// would cut a batch in half; it carries the run, so requests keep
	// to its request timeout and a retry stops at an interrupt.
	ctx context.Context
	// observing is what only reads use: the first interrupt ends it.
	observing     context.Context
	stopObserving context.CancelFunc
	track         *tracker
	locks         *tenantLocks
	ahead         *readAhead
	lockErr       error // a lock DiscoverLocked's listing did not take
}

// Backends are the drivers one run uses, as backends/providers.Set
// holds them: the engine names no provider.
type Backends interface {
	// Discover returns what finds the steps only observing names, for
	// the loader; reading names the listing while it runs.
	Discover(ctx context.Context, reading func(what string) (done func())) func(*graph.Graph) ([]*graph.Step, error)
	DriverFor(*graph.Step) (backends.Driver, error)
	// Check refuses a graph with a step this build has no backend for.
	Check(*graph.Graph) error
	// ForgetDiscovered drops what Discover read, so steps observe afresh.
	ForgetDiscovered()
	// LockStore is the store of tenant t's apply lock.
	LockStore(ctx context.Context, t *model.Tenant, run *backends.Run, specDirs []string) (lock.Store, error)
	// Prefetcher reads z ahead of its step; nil when its backend cannot.
	Prefetcher(z *model.Zone) backends.Prefetcher
	Close() error
}

// Options shape a Session.
type Options struct {
	// Apply is set for a run that writes: it takes each tenant's apply
	// lock; a diff only notes whose lock is held.
	Apply bool
	// Parallelism bounds the steps observed or applied at once.
	Parallelism int
	// Hook hears every step and every event; nil is silent.
	Hook SessionHook
	// Command is the command line a lock's holder names.
	Command string
	// LockWait is how long to wait for another run's lock (--lock-timeout).
	LockWait time.Duration
	// ExitWithin bounds what a second interrupt waits for: the steps and
	// lock requests in flight and the release of the locks, together.
	ExitWithin time.Duration
	// SlowAfter is how long a request goes unanswered before a
	// SlowRequest event names it (0: backends.DefaultSlowAfter).
	SlowAfter time.Duration
	// CloseWithin bounds closing the backends (0: 3 s).
	CloseWithin time.Duration
	// ConfigDir is the directory of the operator's file, which a lock
	// directory must stay out of, with the specs' ones.
	ConfigDir string
}

// SessionHook is a Hook that also hears the session's events (it may
// be an ObservingHook too).
type SessionHook interface {
	Hook
	Notify(Event)
}

// Open starts a session over bk for run, giving run its state (the
// secrets its steps read, what they compute once) unless engine.NewRun
// already did: from now on requests of run
// that wait long are events, and so are a backend's waits.
func Open(ctx context.Context, bk Backends, run *backends.Run, o Options) *Session {
	runstate.Start(run) // a run the caller made with backends.NewRun gets its state here
	s := &Session{o: o, bk: bk, run: run, ctx: backends.WithRun(ctx, run), locks: &tenantLocks{}}
	s.track = newTracker(o.Hook)
	s.eng = &Engine{DriverFor: bk.DriverFor, Parallelism: o.Parallelism, Hook: s.track}
	s.observing, s.stopObserving = context.WithCancel(s.ctx)
	run.SlowAfter = o.SlowAfter
	run.Slow = func(a backends.Awaited, waited time.Duration) { s.notify(SlowRequest{a, waited}) }
	run.Progress = func(line string) { s.notify(Said{line}) }
	return s
}

func (s *Session) notify(e Event) {
	if s.o.Hook != nil {
		s.o.Hook.Notify(e)
	}
}

// Run is what the session's steps share.
func (s *Session) Run() *backends.Run { return s.run }

// Discover is what the loader calls to find the steps only observing
// names; diff's listing reads without any lock.
func (s *Session) Discover() func(*graph.Graph) ([]*graph.Step, error) {
	return s.bk.Discover(s.observing, s.track.listing)
}

// DiscoverLocked is Discover once the locks of the tenants that targets
// pick among the declared steps are held: listing what the tenants no
// longer declare is the first slow read, and a locked tenant's apply
// must fail before it. A lock not taken ends the listing; LockErr says
// why.
func (s *Session) DiscoverLocked(targets []string) func(*graph.Graph) ([]*graph.Step, error) {
	discover := s.Discover()
	return func(g *graph.Graph) ([]*graph.Step, error) {
		pre := g
		if scoped, err := g.Targets(targets); err == nil {
			pre = scoped // else the targets name only what discover finds
		}
		if s.lockErr = s.lock(pre); s.lockErr != nil {
			return nil, s.lockErr
		}
		return discover(g)
	}
}

// LockErr is why DiscoverLocked took no lock, or nil; the caller
// reports it before the loader's error.
func (s *Session) LockErr() error { return s.lockErr }

// Check refuses a graph with a step the backends cannot serve.
func (s *Session) Check(g *graph.Graph) error { return s.bk.Check(g) }

// Lock takes the locks of g's tenants the session does not hold yet
// (those of the steps only the listing found), after the listing's
// reads are forgotten: the steps observe afresh under the locks.
func (s *Session) Lock(g *graph.Graph) error {
	if s.observing.Err() != nil {
		return errors.New("apply was interrupted before anything was observed: nothing was changed")
	}
	s.bk.ForgetDiscovered()
	return s.lock(g)
}

// Plan observes every step of g. A diff says meanwhile whose apply
// lock another run holds. Its error is that of an interrupt.
func (s *Session) Plan(g *graph.Graph) (*Observation, error) {
	outcome := "nothing was changed"
	if !s.o.Apply {
		outcome = "nothing is planned"
		noted := s.noteLocksMeanwhile(g)
		defer noted()
	}
	obs, err := s.eng.Plan(s.observing, g, s.run)
	if err != nil {
		return nil, interruptedObserving(err, outcome)
	}
	return obs, nil
}

// Apply carries out obs with the context that writes (never the
// interrupt's: an interrupted run stops the walk between steps).
func (s *Session) Apply(g *graph.Graph, obs *Observation) (*Report, error) {
	return s.eng.Apply(s.ctx, g, obs, s.run)
}

// Close ends the reads ahead, releases the locks and closes the
// backends, within CloseWithin: what fails to close changed nothing the
// run did, so it is an event, not an error.
func (s *Session) Close() {
	s.ahead.stop()
	if err := s.locks.release(context.WithoutCancel(s.ctx)); err != nil {
		s.notify(Failed{err})
	}
	s.stopObserving()
	if e := CloseWithin(s.bk.Close, s.o.CloseWithin); e != nil {
		s.notify(e)
	}
}

// CloseWithin runs close, a run's backends' Close, for at most within
// (0: 3 s), and returns what to say of it, nil when it closed.
func CloseWithin(close func() error, within time.Duration) Event {
	if within <= 0 {
		within = 3 * time.Second
	}
	closed := make(chan error, 1)
	go func() { closed <- close() }()
	select {
	case err := <-closed:
		if err != nil {
			return Failed{err}
		}
		return nil
	case <-time.After(within):
		// A connection whose server stopped answering (an observation
		// left behind by an interrupt holds it) would keep the run from
		// ending; the process ends and the kernel closes it.
		return CloseTimedOut{within}
	}
}

// interruptedObserving is the error of a run whose observation ctx
// ended (err, from Engine.Plan): an interrupt says so in words, without
// Go's "context canceled"; any other end is named.
func interruptedObserving(err error, outcome string) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("observing was interrupted: %s", outcome)
	}
	return fmt.Errorf("observing was interrupted (%w): %s", err, outcome)
}
