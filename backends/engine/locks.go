package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// This file takes each tenant's apply lock for an applying Session
// (site diff only reads it, site unlock breaks it): one per tenant, in
// the store the backends name for it (Backends.LockStore), taken in
// name order before the first slow read and held to the end.

// ScopeTenants are the tenants whose steps are in g, by name: the
// tenants whose locks an apply of g takes.
func ScopeTenants(g *graph.Graph) []*model.Tenant {
	seen := map[string]*model.Tenant{}
	for _, s := range g.Steps {
		if s.TenantSpec != nil {
			seen[s.TenantSpec.Name] = s.TenantSpec
		}
	}
	out := make([]*model.Tenant, 0, len(seen))
	for _, t := range seen {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SpecDirs are configDir (the operator's file's, "" for none) and the
// directories of the specs of g's tenants: what a lock directory must
// stay out of.
func SpecDirs(configDir string, g *graph.Graph) []string {
	var dirs []string
	if configDir != "" {
		dirs = append(dirs, configDir)
	}
	for _, t := range ScopeTenants(g) {
		if t.Pos.File != "" {
			dirs = append(dirs, filepath.Dir(t.Pos.File))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// tenantLocks are the apply locks a run holds, in the order it took
// them, and those it is taking. The run releases them as it ends; a
// second interrupt releases them (lockexit.go) while the run may still
// take or release one, hence the mutex (each Lock's Release is safe to
// call twice, and at once).
type tenantLocks struct {
	mu     sync.Mutex
	held   []tenantLock
	closed bool // released for a second interrupt: take no more
	redact func(string) string
	// acquiring are the Acquires in flight, whose entries the exit of a
	// second interrupt waits for (see taking).
	acquiring map[*takingLock]bool
	// tenantOf names the tenant of each step of the run, for the exit
	// of a second interrupt, which releases a tenant's lock only once
	// none of its steps is in flight.
	tenantOf map[string]string
}

type tenantLock struct {
	tenant string
	l      *lock.Lock
}

// setScope sets, once the run's graph g is known, whose each step is
// and what keeps credential values out of release's errors.
func (t *tenantLocks) setScope(g *graph.Graph, redact func(string) string) {
	tenantOf := map[string]string{}
	for _, s := range g.Steps {
		if s.Tenant != "" {
			tenantOf[s.ID] = s.Tenant
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.redact, t.tenantOf = redact, tenantOf
}

// release lets go of every lock, the last taken first. Its error never
// carries a credential value, even one a server echoed.
func (t *tenantLocks) release(ctx context.Context) error {
	t.mu.Lock()
	held := slices.Clone(t.held)
	t.mu.Unlock()
	var errs []error
	for i := len(held) - 1; i >= 0; i-- {
		errs = append(errs, held[i].l.Release(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return hint.Redone(t.redactErr(err), hint.Of(err))
	}
	return nil
}

// holds reports whether the run took tenant's lock already.
func (t *tenantLocks) holds(tenant string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(t.held, func(l tenantLock) bool { return l.tenant == tenant })
}

// redactErr is err's text without any credential value.
func (t *tenantLocks) redactErr(err error) string {
	t.mu.Lock()
	redact := t.redact
	t.mu.Unlock()
	if redact == nil {
		return err.Error() // no scope yet: no credential was read
	}
	return redact(err.Error())
}

// errWaitInterrupted ends a wait for another run's lock: the user
// pressed Ctrl-C.
var errWaitInterrupted = errors.New("interrupted")

// lock takes the lock of every tenant in g that the run does not hold
// yet, in name order (so two runs over overlapping tenants never wait
// for each other in a circle). It says whom it waits for (LockWait)
// and any lock taken over from a dead run, which may have stopped
// half-way. Once interrupted it waits no more, stops reading the locks,
// and takes no other tenant's lock: the run then changes nothing. The
// requests that take a lock use s.ctx (cancelling one half-way could
// leave a claim behind). Its errors never carry a credential value,
// even one a server echoed.
func (s *Session) lock(g *graph.Graph) error {
	s.locks.setScope(g, backends.NewRedactor(g, s.run).Redact)
	dirs := SpecDirs(s.o.ConfigDir, g)
	for _, t := range ScopeTenants(g) {
		if s.locks.holds(t.Name) {
			continue
		}
		if s.observing.Err() != nil {
			return fmt.Errorf("apply was interrupted while waiting for tenant %s's apply lock: nothing was changed", t.Name)
		}
		// Finding the store and reading it once change nothing, so an
		// interrupt ends them: a server that holds the read (stopped,
		// say) is found here, before the first write of the lock, which
		// is not cut off half-way (it would leave a claim behind).
		read := s.track.listing(fmt.Sprintf("tenant %s's apply lock", t.Name)) // named by an interrupt
		store, err := s.bk.LockStore(s.observing, t, s.run, dirs)
		if err == nil {
			_, err = store.Holders(s.observing)
		}
		read()
		if s.observing.Err() != nil {
			return fmt.Errorf("apply was interrupted while reading tenant %s's apply lock: nothing was changed", t.Name)
		}
		if err != nil {
			return hint.Redone(s.locks.redactErr(err), hint.Of(err))
		}
		if err := s.takeLock(t, store); err != nil {
			return err
		}
	}
	return nil
}

// takeLock takes tenant t's lock in store (see lock).
func (s *Session) takeLock(t *model.Tenant, store lock.Store) error {
	stopped := fmt.Errorf("apply was interrupted while waiting for tenant %s's apply lock: nothing was changed", t.Name)
	// Noted before its first request: a second interrupt waits for the
	// requests in flight, to remove the entries they wrote.
	taking, ok := s.locks.taking(t.Name, []lock.Store{store})
	if !ok {
		return stopped // the process is exiting (a second interrupt)
	}
	l, err := lock.Acquire(s.ctx, []lock.Store{store}, lock.NewHolder(t.Name, s.o.Command, time.Now()), lock.Options{Wait: s.o.LockWait, Trying: taking.trying,
		Sleep: s.sleepUnlessInterrupted,
		Waiting: func(other lock.Holder, where string) {
			s.notify(LockWaiting{Tenant: t.Name, Other: other, Where: where, Wait: s.o.LockWait})
		}})
	kept := s.locks.took(s.ctx, taking, l, err)
	var he *lock.HeldError
	switch {
	case err == nil && !kept:
		return stopped // the process is exiting (a second interrupt)
	case err == nil:
		for _, dead := range l.TakenOver {
			s.notify(LockTakenOver{Tenant: t.Name, Dead: dead})
		}
		return nil
	case errors.Is(err, errWaitInterrupted):
		return stopped
	case errors.As(err, &he):
		return he
	}
	return hint.Redone(s.locks.redactErr(err), hint.Of(err))
}

// sleepUnlessInterrupted waits d between tries to take a lock, or less
// when the run is interrupted (errWaitInterrupted) or ctx ends.
func (s *Session) sleepUnlessInterrupted(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-s.observing.Done():
		return errWaitInterrupted
	case <-ctx.Done():
		return ctx.Err()
	}
}

// noteLocks tells which tenants in g another run is applying now, and
// whose lock a run that died left behind; a diff says so and takes
// nothing. One read per tenant, whatever its size.
func (s *Session) noteLocks(g *graph.Graph) []Event {
	var notes []Event
	now := time.Now()
	dirs := SpecDirs(s.o.ConfigDir, g)
	for _, t := range ScopeTenants(g) {
		st, err := s.bk.LockStore(s.observing, t, s.run, dirs)
		var hs []lock.Holder
		if err == nil {
			hs, err = st.Holders(s.observing)
		}
		if err != nil {
			if s.observing.Err() == nil {
				notes = append(notes, LockNote{fmt.Sprintf("note: tenant %s's apply lock could not be read, so whether another run applies it now is not known: %v", t.Name, err)})
			}
			continue
		}
		for _, note := range lock.Notes(t.Name, st.Where(), hs, now) {
			notes = append(notes, LockNote{note})
		}
	}
	return notes
}

// noteLocksMeanwhile is noteLocks while the caller observes: the lock
// entries are other requests, so they need not wait for the plan, nor
// the plan for them. The returned function waits for them and tells
// them, after the progress.
func (s *Session) noteLocksMeanwhile(g *graph.Graph) (wait func()) {
	var notes []Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		notes = s.noteLocks(g)
	}()
	return func() {
		<-done
		for _, n := range notes {
			s.notify(n)
		}
	}
}
