package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file decides where each tenant's apply lock lives and takes it
// for site apply; site diff only reads it, site unlock breaks it. The
// rule (README, "Locking"): a KV v2 secret in each vault that holds one
// of the tenant's DNS credentials and answers; the metadata of each of
// the tenant's PowerDNS zones that exists and whose API key is in the
// environment; for a tenant with neither, a lock file beside its spec.

// zoneLocker is a DNS backend that can hold an apply lock in a zone.
type zoneLocker interface {
	LockStore(zone *model.Zone, run *backends.Run, now func() time.Time) (lock.Store, error)
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

// lockStores are the stores of tenant t's lock, with the holders
// readZones read in its zones, by the store's Where (a vault's and the
// lock file's are not read here). Reading a zone's lock entries tells
// whether the zone exists: a zone store is among the stores when it was
// read. readHolders reads every zone once, lockReadsAtOnce at a time (a
// tenant of 200 zones read them one after the other for most of a
// converged diff's time); readFirstHolders only the first that exists.
//
// A vault that holds a zone's credential (as the secret steps of g name
// it) comes first: its KV v2 secret site-locks/<tenant> is written with
// check-and-set, which PowerDNS metadata and a file lack. A vault that
// does not answer from here holds nothing; the secret step reports it.
func lockStores(ctx context.Context, g *graph.Graph, t *model.Tenant, bk *runBackends, run *backends.Run, readZones zoneReader) ([]lock.Store, map[string][]lock.Holder, []string) {
	var skipped []string // why a vault that could hold the lock does not
	var stores []lock.Store
	vaults := map[string]*model.Vault{}
	for _, s := range g.Steps {
		if s.Secret != nil && s.Secret.Store != nil {
			vaults[s.Secret.Ref.Vault] = s.Secret.Store
		}
	}
	vl, _ := bk.Kinds[plan.PhaseSecrets].(vaultLocker)
	seen := map[string]bool{}
	for _, z := range t.Zones {
		ref := z.Provider.Credential().Vault
		if vl == nil || ref == nil || seen[ref.Vault] || vaults[ref.Vault] == nil {
			continue
		}
		seen[ref.Vault] = true
		s, err := vl.LockStore(ctx, vaults[ref.Vault], t.Name, run, nil)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("vault %s does not hold tenant %s's apply lock (%v)", ref.Vault, t.Name, err))
			continue
		}
		stores = append(stores, s)
	}
	var zoneStores []lock.Store
	for _, z := range t.Zones {
		zl, ok := bk.Providers[z.Provider.Kind()].(zoneLocker)
		// A key from Vault is read by a secret step, after the lock is
		// taken: that zone cannot hold it.
		if !ok || z.Provider.PowerDNS == nil || z.Provider.PowerDNS.APIKey.Env == "" {
			continue
		}
		if s, err := zl.LockStore(z, run, nil); err == nil {
			zoneStores = append(zoneStores, s)
		}
	}
	read := readZones(ctx, zoneStores)
	for _, s := range zoneStores {
		// A zone that does not exist yet (this apply creates it) holds
		// nothing; one that cannot be read (server down, key refused)
		// holds nothing either, and the apply reports it when it
		// observes the zone, or leaves it out (--target).
		if _, ok := read[s.Where()]; ok {
			stores = append(stores, s)
		}
	}
	if len(stores) == 0 {
		stores = append(stores, lock.File{Path: lock.FilePath(t.Pos.File, t.Name)})
	}
	return stores, read, skipped
}

// zoneReader reads the lock entries of a tenant's zones: readHolders
// every zone (to take or break the lock, which lives in each of them),
// readFirstHolders the one that tells (to note a running apply).
type zoneReader func(ctx context.Context, stores []lock.Store) map[string][]lock.Holder

// lockReadsAtOnce bounds the zones whose lock entries are read at once.
const lockReadsAtOnce = 8

// readHolders reads the holders of every store, lockReadsAtOnce at a
// time, by the store's Where; a store that could not be read is not in
// the result.
func readHolders(ctx context.Context, stores []lock.Store) map[string][]lock.Holder {
	var mu sync.Mutex
	read := map[string][]lock.Holder{}
	var eg errgroup.Group
	eg.SetLimit(lockReadsAtOnce)
	for _, s := range stores {
		eg.Go(func() error {
			hs, err := s.Holders(ctx)
			if err == nil {
				mu.Lock()
				read[s.Where()] = hs
				mu.Unlock()
			}
			return nil
		})
	}
	_ = eg.Wait() // the goroutines report through read
	return read
}

// readFirstHolders reads the lock entries of the first zone that
// exists, in the order lock.Acquire takes them (lock.InOrder); a zone
// found missing says so at once once its server's zones are listed (see
// powerdns.LockStore). A run holds a tenant's lock in every zone it
// sees or in none, and takes that first zone before any other, so its
// entries tell whether a run that sees the same zones applies the
// tenant now: one request for site diff's note, not one per zone. Any
// other failure ends the reading: the observation reports the server.
func readFirstHolders(ctx context.Context, stores []lock.Store) map[string][]lock.Holder {
	for _, s := range lock.InOrder(stores) {
		hs, err := s.Holders(ctx)
		if err == nil {
			return map[string][]lock.Holder{s.Where(): hs}
		}
		if !errors.Is(err, powerdns.ErrNoZone) {
			break
		}
	}
	return map[string][]lock.Holder{}
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
// reading where the locks are, and takes no other tenant's lock: the
// run then changes nothing. ctx is the requests' that take the lock
// (cancelling one half-way could leave a claim behind).
// Its errors never carry a credential value, even one a server echoed.
func lockTenants(ctx, interrupted context.Context, g *graph.Graph, bk *runBackends, run *backends.Run, command string, wait time.Duration, p *progress, locks *tenantLocks) error {
	say := p.say
	stopped := func(t *model.Tenant) error {
		return fmt.Errorf("apply was interrupted while waiting for tenant %s's apply lock: nothing was changed", t.Name)
	}
	for _, t := range scopeTenants(g) {
		if interrupted.Err() != nil {
			return stopped(t)
		}
		// Reading the entries changes nothing, so Ctrl-C ends it: a
		// server that holds the read (stopped, say) kept the user
		// waiting out every try of it.
		read := p.listing(fmt.Sprintf("tenant %s's apply lock", t.Name)) // named by an interrupt
		stores, _, skipped := lockStores(interrupted, g, t, bk, run, readHolders)
		read()
		if interrupted.Err() != nil {
			return fmt.Errorf("apply was interrupted while reading tenant %s's apply lock: nothing was changed", t.Name)
		}
		if len(skipped) > 0 {
			where := make([]string, len(stores))
			for i, s := range stores {
				where[i] = s.Where()
			}
			// The lock then covers fewer runs (a file only this
			// checkout's): worth knowing before relying on it.
			for _, why := range skipped {
				say(fmt.Sprintf("site: note: %s; it is held in %s instead", why, somePlaces(where)))
			}
		}
		// Noted before its first request: a second Ctrl-C waits for the
		// requests in flight, to remove the entries they wrote.
		taking, ok := locks.taking(t.Name, stores)
		if !ok {
			return stopped(t) // the process is exiting (a second Ctrl-C)
		}
		l, err := lock.Acquire(ctx, stores, lock.NewHolder(t.Name, command, time.Now()), lock.Options{Wait: wait, Trying: taking.trying,
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
		if err == nil {
			if !kept {
				return stopped(t) // the process is exiting (a second Ctrl-C)
			}
			for _, dead := range l.TakenOver {
				say(fmt.Sprintf("site: took over the expired apply lock of tenant %s held by %s: that run may have left changes half-done; this apply converges them", t.Name, dead))
			}
			continue
		}
		var he *lock.HeldError
		switch {
		case errors.Is(err, errWaitInterrupted):
			return stopped(t)
		case errors.As(err, &he):
			return he
		}
		return errors.New(locks.redact(err.Error()))
	}
	return nil
}

// noteLocks tells, on w, which tenants in g another run is applying now;
// site diff says so and takes nothing.
func noteLocks(ctx context.Context, w io.Writer, g *graph.Graph, bk *runBackends, run *backends.Run) {
	now := time.Now()
	for _, t := range scopeTenants(g) {
		stores, read, _ := lockStores(ctx, g, t, bk, run, readFirstHolders)
		for _, s := range stores {
			hs, ok := read[s.Where()]
			if !ok {
				hs, _ = s.Holders(ctx) // the lock file, not read by lockStores
			}
			for _, h := range hs {
				if h.Live(now) && h.State != lock.Claim {
					fmt.Fprintf(w, "note: tenant %s is being applied now by %s (lock in %s); what is live may be half-way through that apply\n", t.Name, h, s.Where())
				}
			}
		}
	}
}

// noteLocksMeanwhile is noteLocks while the caller observes: the lock
// entries are other requests (a zone's metadata), so they need not wait
// for the plan, nor the plan for them. The returned function waits for
// them and writes the notes to w, after the progress.
func noteLocksMeanwhile(ctx context.Context, w io.Writer, g *graph.Graph, bk *runBackends, run *backends.Run) (wait func()) {
	var notes bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		noteLocks(ctx, &notes, g, bk, run)
	}()
	return func() {
		<-done
		_, _ = notes.WriteTo(w)
	}
}
