// Package lock keeps two `site apply` runs of one tenant from
// interleaving: each run holds the tenant's lock for its whole apply, and
// a second run waits for it (up to --lock-timeout) or exits naming the
// holder. There is no coordinator of site's own: a lock lives in a store
// that already exists and that the operator's site.cue names (locks): a
// KV v2 secret written with check-and-set in the operator's Vault
// (backends/vault), metadata of one PowerDNS zone (backends/powerdns),
// or a file in a directory outside the repository (File, DirFile),
// never anything under tenants/, which a pull request writes. Every
// holder writes a lease that it renews while it runs, so a holder that
// died (kill -9, a lost machine) stops holding once its lease has
// expired.
//
// Acquire takes a list of stores, the first of a fixed order alone and
// the others at once, and either holds all of them or none, so two runs
// can never each hold a part and wait for the other.
package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLease is how long a holder's claim lasts without renewal; a
// running holder renews it every third of that.
const DefaultLease = time.Minute

// Lock is a held lock; Release it when the run ends.
type Lock struct {
	// TakenOver are the holders, dead by their expired leases, whose
	// holds Acquire removed to take the lock (one each, however many
	// stores held it). A claim is not among them: a run that died while
	// taking the lock had changed nothing.
	TakenOver []Holder

	stores []Store
	lease  time.Duration
	stop   chan struct{} // closed by the first Release: no renewal starts
	halt   sync.Once
	// renewed is closed when the renewal goroutine has returned: no
	// renewal is in flight any more.
	renewed chan struct{}
	mu      sync.Mutex
	holder  Holder // its Expires moves on every renewal
	err     error  // the first failed renewal
	// releasing lets one Release run at a time (site's second Ctrl-C
	// releases while the run may end and release too).
	releasing sync.Mutex
	released  atomic.Bool
}

// renew moves the lease on every third of it until Release.
func (l *Lock) renew(now func() time.Time) {
	defer close(l.renewed)
	t := time.NewTicker(l.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		select {
		case <-l.stop: // a tick and Release at once: Release wins
			return
		default:
		}
		l.mu.Lock()
		l.holder.Expires = now().Add(l.lease)
		h := l.holder
		l.mu.Unlock()
		errs := each(l.stores, func(s Store) error { return s.Renew(context.Background(), h) })
		for i, err := range errs {
			if err != nil {
				l.mu.Lock()
				if l.err == nil {
					l.err = fmt.Errorf("renewing the apply lock in %s: %w", l.stores[i].Where(), err)
				}
				l.mu.Unlock()
				break
			}
		}
	}
}

// Holder is who holds the lock, with the lease as last renewed (or
// being renewed): the hold ends by itself then.
func (l *Lock) Holder() Holder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.holder
}

// Release stops renewing and removes every hold, and returns the first
// renewal or release failure: a run that lost its lease mid-way says so.
// A renewal in flight finishes first (a removal sent beside it could
// reach the store before it and leave the renewed hold behind); when ctx
// ends before that, nothing is removed. Release may be called from
// several goroutines and again after a failure (it tries once more); it
// returns at once when every hold was removed already.
func (l *Lock) Release(ctx context.Context) error {
	l.releasing.Lock()
	defer l.releasing.Unlock()
	if l.released.Load() {
		return nil
	}
	l.halt.Do(func() { close(l.stop) })
	select {
	case <-l.renewed:
	case <-ctx.Done():
		return fmt.Errorf("releasing the apply lock: gave up waiting for a renewal in flight (%w); its lease runs out by itself", context.Cause(ctx))
	}
	var errs []error
	l.mu.Lock()
	if l.err != nil {
		errs = append(errs, l.err)
	}
	h := l.holder
	l.mu.Unlock()
	failed := false
	for i, err := range each(l.stores, func(s Store) error { return s.Release(ctx, h) }) {
		if err != nil {
			failed = true
			errs = append(errs, fmt.Errorf("releasing the apply lock in %s: %w (its lease runs out by itself)", l.stores[i].Where(), err))
		}
	}
	l.released.Store(!failed)
	return errors.Join(errs...)
}

// Released reports whether Release removed every hold: false while it
// runs, and after one that failed (the lease then ends the hold).
func (l *Lock) Released() bool { return l.released.Load() }
