package lock

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Options tune Acquire.
type Options struct {
	Wait  time.Duration // how long to wait for another holder; 0: fail at once
	Lease time.Duration // DefaultLease when 0
	Now   func() time.Time
	// Sleep waits between tries; time.Sleep (with ctx) when nil. An
	// error it returns (the caller was interrupted) ends Acquire with it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Waiting, when set, is called once, as Acquire starts to wait for
	// another run (Wait > 0) that holds the lock in where: the caller
	// says so, since the wait may be long and is otherwise silent.
	Waiting func(other Holder, where string)
	// Trying, when set, hears of each try before its first request,
	// with the holder (and lease) the try writes: a caller that exits
	// while a try is unanswered can name the entry it may leave behind.
	Trying func(h Holder)
}

// contendedRetries bounds the tries of two runs that both backed off
// from a store without compare-and-swap, and so left it to neither.
const contendedRetries = 8

// Acquire takes every store for h, in the order of their Where, or none.
func Acquire(ctx context.Context, stores []Store, h Holder, o Options) (*Lock, error) {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	stores = InOrder(stores)
	var (
		mu        sync.Mutex
		takenOver []Holder
	)
	ctx = WatchTakeovers(ctx, func(dead Holder) {
		mu.Lock()
		defer mu.Unlock()
		if dead.State != Claim && !slices.ContainsFunc(takenOver, func(h Holder) bool { return h.ID == dead.ID }) {
			takenOver = append(takenOver, dead)
		}
	})
	start := o.Now()
	contended := 0
	told := false
	for {
		h.Expires = o.Now().Add(o.Lease)
		if o.Trying != nil {
			o.Trying(h)
		}
		other, where, err := tryAll(ctx, stores, h)
		if err != nil {
			return nil, err
		}
		if other == nil {
			mu.Lock()
			l := &Lock{TakenOver: takenOver, stores: stores, holder: h, lease: o.Lease, stop: make(chan struct{}), renewed: make(chan struct{})}
			mu.Unlock()
			go l.renew(o.Now)
			return l, nil
		}
		waited := o.Now().Sub(start)
		// A claim, not a holder: both runs stepped back, so try again
		// after a random pause, however short --lock-timeout is.
		if other.State == Claim && contended < contendedRetries {
			contended++
		} else if waited >= o.Wait {
			return nil, &HeldError{Tenant: h.Tenant, Holder: *other, Where: where, Waited: o.Wait}
		} else if !told && o.Waiting != nil {
			told = true
			o.Waiting(*other, where)
		}
		if err := o.Sleep(ctx, jitter(o.Lease)); err != nil {
			return nil, err
		}
	}
}

// InOrder returns stores in the order Acquire takes them (by Where):
// every run of a tenant takes the first of them before any other, so
// its entries alone tell whether a run holds the tenant's lock.
func InOrder(stores []Store) []Store {
	return slices.SortedFunc(slices.Values(stores), func(a, b Store) int { return strings.Compare(a.Where(), b.Where()) })
}

// tryAll takes the first store, then the others at once; when any is
// held by another it releases those it took and returns the holder of
// the first such store in order.
func tryAll(ctx context.Context, stores []Store, h Holder) (*Holder, string, error) {
	if len(stores) == 0 {
		return nil, "", nil
	}
	// The first store alone, then the rest at once. Every run of a
	// tenant sorts the same stores the same way, so the run that holds
	// the first keeps the others out of the rest: trying the rest
	// together decides exactly what trying them one by one did. For the
	// same reason the rest are taken in one step where the store can
	// (HeldTaker): only a run that sees other stores (another's first
	// store is among this one's rest) can meet this one there, and one
	// step still keeps the two from both holding. A PowerDNS zone
	// costs its lock four requests instead of six.
	first := tryOne(ctx, stores[0], h)
	if first.err != nil || first.other != nil {
		return first.report(stores[0])
	}
	rest := each(stores[1:], func(s Store) tried { return tryRest(ctx, s, h) })
	for i, r := range rest {
		if r.err == nil && r.other == nil {
			continue
		}
		var taken []Store
		for j, r := range append([]tried{first}, rest...) {
			if r.err == nil && r.other == nil {
				taken = append(taken, stores[j])
			}
		}
		// Best effort: the lease ends a hold anyway.
		each(taken, func(s Store) error { return s.Release(ctx, h) })
		return r.report(stores[i+1])
	}
	return nil, "", nil
}

// tried is what one store's Try said.
type tried struct {
	other *Holder
	err   error
}

func tryOne(ctx context.Context, s Store, h Holder) tried {
	other, err := s.Try(ctx, h)
	return tried{other, err}
}

// tryRest takes a store after the first: in one step when it can.
func tryRest(ctx context.Context, s Store, h Holder) tried {
	if t, ok := s.(HeldTaker); ok {
		other, err := t.TryHeld(ctx, h)
		return tried{other, err}
	}
	return tryOne(ctx, s, h)
}

// report is tryAll's answer for a store that did not take h.
func (r tried) report(s Store) (*Holder, string, error) {
	if r.err != nil {
		return nil, "", fmt.Errorf("taking the apply lock in %s: %w", s.Where(), r.err)
	}
	return r.other, s.Where(), nil
}

// storesAtOnce bounds the stores tried, renewed or released at once. A
// tenant with many PowerDNS zones holds its lock in each of them (two
// requests a zone to take it, four for the first; one to renew, one to
// release), and one store after the other that was seconds on 200 zones.
const storesAtOnce = 8

// each calls f for every store, storesAtOnce at a time, and returns its
// results in the stores' order.
func each[T any](stores []Store, f func(Store) T) []T {
	out := make([]T, len(stores))
	var g errgroup.Group
	g.SetLimit(storesAtOnce)
	for i, s := range stores {
		g.Go(func() error {
			out[i] = f(s)
			return nil
		})
	}
	_ = g.Wait() // f reports through out
	return out
}

// jitter is a pause between tries: random, up to a fiftieth of the
// lease (1.2 s by default) and at least 20 ms.
func jitter(lease time.Duration) time.Duration {
	n, _ := rand.Int(rand.Reader, big.NewInt(int64(lease/50)))
	return 20*time.Millisecond + time.Duration(n.Int64())
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
