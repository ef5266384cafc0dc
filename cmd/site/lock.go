package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file finds each tenant's apply lock and takes it for site apply;
// site diff only reads it, site unlock breaks it. The rule (help topic
// "locking"): one entry per tenant, in the one store site.cue names
// (locks: a directory, a vault or a PowerDNS zone), else in a directory
// of the user's state directory. Nothing a tenant's spec declares moves
// it, and nothing is ever read or written under the specs' directories,
// which a pull request writes.

// zoneLocker is the PowerDNS backend, which can hold every tenant's
// apply lock in the metadata of one zone (site.cue locks: powerdns).
type zoneLocker interface {
	TenantLockStore(provider model.Provider, zone, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error)
}

// vaultLocker is the secrets backend when it can hold an apply lock in a
// KV v2 secret of one of the operator's stores.
type vaultLocker interface {
	LockStore(ctx context.Context, store *model.Vault, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error)
}

// scopeTenants are the tenants whose steps are in g, by name.
func scopeTenants(g *graph.Graph) []*model.Tenant {
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

// lockStore is the store of tenant t's apply lock, as site.cue alone
// says (lock.For), kept by this run's backends.
func lockStore(ctx context.Context, t *model.Tenant, bk *runBackends, run *backends.Run, specDirs []string) (lock.Store, error) {
	var k lock.Keepers
	if vl, ok := bk.Kinds[plan.PhaseSecrets].(vaultLocker); ok {
		k.Vault = func(ctx context.Context, store *model.Vault, tenant string) (lock.Store, error) {
			return vl.LockStore(ctx, store, tenant, run, nil)
		}
	}
	if t.Locks != nil && t.Locks.PowerDNS != nil {
		if zl, ok := bk.Providers[t.Locks.PowerDNS.Provider.Kind()].(zoneLocker); ok {
			k.PowerDNS = func(provider model.Provider, zone, tenant string) (lock.Store, error) {
				return zl.TenantLockStore(provider, zone, tenant, run, nil)
			}
		}
	}
	return lock.For(ctx, t, k, specDirs)
}

// specDirs are the directories of the operator's file and of the specs
// of g's tenants: what a lock directory must stay out of.
func specDirs(args []string, g *graph.Graph) []string {
	var dirs []string
	if config, _, err := specInput(args); err == nil {
		dirs = append(dirs, filepath.Dir(config))
	}
	for _, t := range scopeTenants(g) {
		if t.Pos.File != "" {
			dirs = append(dirs, filepath.Dir(t.Pos.File))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// tenantLocks are the apply locks a run holds, in the order it took
// them, and those it is taking. The run releases them as it ends; a
// second Ctrl-C releases them from the signal watcher (interrupt.go,
// interrupt_locks.go) while the run may still take or release one,
// hence the mutex (each Lock's Release is safe to call twice, and at
// once).
type tenantLocks struct {
	mu     sync.Mutex
	held   []tenantLock
	closed bool // released for a second Ctrl-C: take no more
	redact func(string) string
	// acquiring are the Acquires in flight, whose entries the exit of a
	// second Ctrl-C waits for (see taking).
	acquiring map[*takingLock]bool
	// tenantOf names the tenant of each step of the run, for the exit
	// of a second Ctrl-C, which releases a tenant's lock only once none
	// of its steps is in flight.
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
		t.mu.Lock()
		redact := t.redact
		t.mu.Unlock()
		if redact == nil {
			redact = func(s string) string { return s } // nothing was held: no credential was read
		}
		return errors.New(redact(err.Error()))
	}
	return nil
}

// errWaitInterrupted ends a wait for another run's lock: the user
// pressed Ctrl-C.
var errWaitInterrupted = errors.New("interrupted")

// lockTenants takes the lock of every tenant in g, in name order (so two
// runs over overlapping tenants never wait for each other in a circle),
// into locks. It says through p whom it waits for (--lock-timeout)
// and any lock taken over from a dead run, which may have stopped
// half-way. Once interrupted is done (Ctrl-C) it waits no more, stops

// holds reports whether the run took tenant's lock already.
func (t *tenantLocks) holds(tenant string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(t.held, func(l tenantLock) bool { return l.tenant == tenant })
}

// lockTenants takes the lock of every tenant in g that the run does not
// hold yet, in name order (so two runs over overlapping tenants never
// wait for each other in a circle), into locks. It says through p whom
// it waits for (--lock-timeout) and any lock taken over from a dead
// run, which may have stopped half-way. Once interrupted is done
// (Ctrl-C) it waits no more, stops reading the locks, and takes no
// other tenant's lock: the run then changes nothing. ctx is the
// requests' that take the lock (cancelling one half-way could leave a
// claim behind). Its errors never carry a credential value, even one a
// server echoed.
func lockTenants(ctx, interrupted context.Context, g *graph.Graph, dirs []string, bk *runBackends, run *backends.Run, command string, wait time.Duration, p *progress, locks *tenantLocks) error {
	stopped := func(t *model.Tenant) error {
		return fmt.Errorf("apply was interrupted while waiting for tenant %s's apply lock: nothing was changed", t.Name)
	}
	for _, t := range scopeTenants(g) {
		if locks.holds(t.Name) {
			continue
		}
		if interrupted.Err() != nil {
			return stopped(t)
		}
		// Finding the store and reading it once change nothing, so
		// Ctrl-C ends them: a server that holds the read (stopped, say)
		// is found here, before the first write of the lock, which is
		// not cut off half-way (it would leave a claim behind).
		read := p.listing(fmt.Sprintf("tenant %s's apply lock", t.Name)) // named by an interrupt
		store, err := lockStore(interrupted, t, bk, run, dirs)
		if err == nil {
			_, err = store.Holders(interrupted)
		}
		read()
		if interrupted.Err() != nil {
			return fmt.Errorf("apply was interrupted while reading tenant %s's apply lock: nothing was changed", t.Name)
		}
		if err != nil {
			return errors.New(locks.redactErr(err))
		}
		if err := takeLock(ctx, interrupted, t, store, command, wait, p.say, locks); err != nil {
			return err
		}
	}
	return nil
}

// applyLocking is what site apply takes its tenants' locks with (see
// lockTenants).
type applyLocking struct {
	ctx, interrupted context.Context
	args             []string
	bk               *runBackends
	run              *backends.Run
	command          string
	wait             time.Duration
	p                *progress
	locks            *tenantLocks
}

// lock takes the locks of g's tenants that the run does not hold yet:
// all of them, or those of the steps only the listing found.
func (a applyLocking) lock(g *graph.Graph) error {
	a.locks.setScope(g, backends.NewRedactor(g, a.run).Redact)
	return lockTenants(a.ctx, a.interrupted, g, specDirs(a.args, g), a.bk, a.run, a.command, a.wait, a.p, a.locks)
}

// first is discover once the locks of the tenants that targets pick
// among the declared steps are held: listing what the tenants no longer
// declare is the first slow read, and a locked tenant's apply must fail
// before it (it failed after two). A lock not taken ends the listing
// and is kept in *failed, which the caller reports first.
func (a applyLocking) first(targets []string, discover discoverFunc, failed *error) discoverFunc {
	return func(g *graph.Graph) ([]*graph.Step, error) {
		pre := g
		if scoped, err := g.Targets(targets); err == nil {
			pre = scoped // else the targets name only what discover finds
		}
		if *failed = a.lock(pre); *failed != nil {
			return nil, *failed
		}
		return discover(g)
	}
}

// takeLock takes tenant t's lock in store into locks (see lockTenants).
func takeLock(ctx, interrupted context.Context, t *model.Tenant, store lock.Store, command string, wait time.Duration, say func(string), locks *tenantLocks) error {
	stopped := fmt.Errorf("apply was interrupted while waiting for tenant %s's apply lock: nothing was changed", t.Name)
	// Noted before its first request: a second Ctrl-C waits for the
	// requests in flight, to remove the entries they wrote.
	taking, ok := locks.taking(t.Name, []lock.Store{store})
	if !ok {
		return stopped // the process is exiting (a second Ctrl-C)
	}
	l, err := lock.Acquire(ctx, []lock.Store{store}, lock.NewHolder(t.Name, command, time.Now()), lock.Options{Wait: wait, Trying: taking.trying,
		Sleep: func(ctx context.Context, d time.Duration) error {
			timer := time.NewTimer(d)
			defer timer.Stop()
			select {
			case <-timer.C:
				return nil
			case <-interrupted.Done():
				return errWaitInterrupted
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		// Said once: the wait may be long, and was silent.
		Waiting: func(other lock.Holder, where string) {
			until := "for it to finish"
			if other.State == lock.Claim {
				until = "for it to take the lock and finish, or for its claim to run out"
			}
			say(fmt.Sprintf("site: %s; waiting up to %s (--lock-timeout) %s", lock.Busy(t.Name, other, where), wait, until))
		}})
	kept := locks.took(ctx, taking, l, err)
	var he *lock.HeldError
	switch {
	case err == nil && !kept:
		return stopped // the process is exiting (a second Ctrl-C)
	case err == nil:
		for _, dead := range l.TakenOver {
			say(fmt.Sprintf("site: took over the expired apply lock of tenant %s held by %s: that run may have left changes half-done; this apply converges them", t.Name, dead))
		}
		return nil
	case errors.Is(err, errWaitInterrupted):
		return stopped
	case errors.As(err, &he):
		return he
	}
	return errors.New(locks.redactErr(err))
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

// noteLocks tells, on w, which tenants in g another run is applying now,
// and whose lock a run that died left behind; site diff says so and
// takes nothing. One read per tenant, whatever its size.
func noteLocks(ctx context.Context, w io.Writer, g *graph.Graph, dirs []string, bk *runBackends, run *backends.Run) {
	now := time.Now()
	for _, t := range scopeTenants(g) {
		s, err := lockStore(ctx, t, bk, run, dirs)
		var hs []lock.Holder
		if err == nil {
			hs, err = s.Holders(ctx)
		}
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(w, "note: tenant %s's apply lock could not be read, so whether another run applies it now is not known: %v\n", t.Name, err)
			}
			continue
		}
		for _, note := range lock.Notes(t.Name, s.Where(), hs, now) {
			fmt.Fprintln(w, note)
		}
	}
}

// noteLocksMeanwhile is noteLocks while the caller observes: the lock
// entries are other requests, so they need not wait for the plan, nor
// the plan for them. The returned function waits for them and writes
// the notes to w, after the progress.
func noteLocksMeanwhile(ctx context.Context, w io.Writer, g *graph.Graph, dirs []string, bk *runBackends, run *backends.Run) (wait func()) {
	var notes bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		noteLocks(ctx, &notes, g, dirs, bk, run)
	}()
	return func() {
		<-done
		_, _ = notes.WriteTo(w)
	}
}
