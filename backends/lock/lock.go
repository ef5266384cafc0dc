// Package lock keeps two `site apply` runs of one tenant from
// interleaving: each run holds the tenant's lock for its whole apply, and
// a second run waits for it (up to --lock-timeout) or exits naming the
// holder. There is no coordinator of site's own: a lock lives in a store
// that already exists, a KV v2 secret written with check-and-set in the
// operator's Vault (backends/vault), PowerDNS zone metadata
// (backends/powerdns) or a lock file beside the specs (File), and every
// holder writes a lease that it renews while it runs, so a holder that
// died (kill -9, a lost machine) stops holding once its lease has
// expired.
//
// Acquire takes a list of stores in a fixed order and either holds all
// of them or none, so two runs can never each hold a part and wait for
// the other.
package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultLease is how long a holder's claim lasts without renewal; a
// running holder renews it every third of that.
const DefaultLease = time.Minute

// Holder says who holds (or asks for) a lock.
type Holder struct {
	ID      string    `json:"id"` // random, unique per run
	Tenant  string    `json:"tenant"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Start   time.Time `json:"start"`
	Command string    `json:"command"`
	Expires time.Time `json:"expires"` // the lease: past it, the holder is taken for dead
	// State is "claim" while a run is still deciding whether it holds a
	// store that has no compare-and-swap (PowerDNS metadata), "held"
	// once it does.
	State string `json:"state,omitempty"`
}

// Claim and Held are the values of Holder.State.
const (
	Claim = "claim"
	Held  = "held"
)

// NewHolder describes this process asking for tenant's lock for command.
func NewHolder(tenant, command string, now time.Time) Holder {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (Go 1.24+)
	return Holder{ID: strings.ToUpper(hex.EncodeToString(id[:])), Tenant: tenant, Host: host, PID: os.Getpid(),
		Start: now.UTC().Truncate(time.Second), Command: command}
}

// String names the holder the way an operator finds it: host, pid, start
// time, command and when its lease runs out.
func (h Holder) String() string {
	return fmt.Sprintf("host %s, pid %d, started %s, command %q, lease until %s",
		h.Host, h.PID, h.Start.UTC().Format(time.RFC3339), h.Command, h.Expires.UTC().Format(time.RFC3339))
}

// Live reports whether h's lease still runs at now.
func (h Holder) Live(now time.Time) bool { return now.Before(h.Expires) }

// Store is one place a lock lives.
type Store interface {
	// Where names the store in messages: "PowerDNS zone x. (metadata
	// X-SITE-LOCK-…)", "file tenants/.office1.lock".
	Where() string
	// Try takes the store for h (h.Expires set) once, without waiting.
	// When another live holder has it, Try returns that holder and
	// leaves nothing of h behind. Expired holders it finds are removed
	// (a dead holder's lease is taken over).
	Try(ctx context.Context, h Holder) (other *Holder, err error)
	// Renew moves h's lease to h.Expires.
	Renew(ctx context.Context, h Holder) error
	// Release removes h's hold.
	Release(ctx context.Context, h Holder) error
	// Holders lists every holder the store shows, expired ones included.
	Holders(ctx context.Context) ([]Holder, error)
	// Break removes the hold of h, whoever it is (site unlock).
	Break(ctx context.Context, h Holder) error
}

// HeldError is a lock another run holds.
type HeldError struct {
	Tenant string
	Holder Holder
	Where  string
	Waited time.Duration
}

func (e *HeldError) Error() string {
	waited := "--lock-timeout is 0"
	if e.Waited > 0 {
		waited = fmt.Sprintf("waited %s (--lock-timeout)", e.Waited)
	}
	return fmt.Sprintf("tenant %s is being applied by another run (%s) holding %s; %s: wait for it to finish and run again, give --lock-timeout to wait, or, if that run is dead, wait for its lease to run out or break the lock with site unlock %s --ack GATE-LOCK-BREAK",
		e.Tenant, e.Holder, e.Where, waited, e.Tenant)
}

// Options tune Acquire.
type Options struct {
	Wait  time.Duration // how long to wait for another holder; 0: fail at once
	Lease time.Duration // DefaultLease when 0
	Now   func() time.Time
	// Sleep waits between tries; time.Sleep (with ctx) when nil.
	Sleep func(ctx context.Context, d time.Duration) error
}

// contendedRetries bounds the tries of two runs that both backed off
// from a store without compare-and-swap, and so left it to neither.
const contendedRetries = 8

// Lock is a held lock; Release it when the run ends.
type Lock struct {
	stores []Store
	holder Holder
	lease  time.Duration
	stop   chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	err    error // the first failed renewal
}

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
	stores = append([]Store(nil), stores...)
	sort.Slice(stores, func(i, j int) bool { return stores[i].Where() < stores[j].Where() })
	start := o.Now()
	contended := 0
	for {
		h.Expires = o.Now().Add(o.Lease)
		other, where, err := tryAll(ctx, stores, h)
		if err != nil {
			return nil, err
		}
		if other == nil {
			l := &Lock{stores: stores, holder: h, lease: o.Lease, stop: make(chan struct{})}
			l.done.Add(1)
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
		}
		if err := o.Sleep(ctx, jitter(o.Lease)); err != nil {
			return nil, err
		}
	}
}

// tryAll takes each store in turn; on the first one held by another it
// releases those it took and returns that holder.
func tryAll(ctx context.Context, stores []Store, h Holder) (*Holder, string, error) {
	for i, s := range stores {
		other, err := s.Try(ctx, h)
		if err == nil && other == nil {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			_ = stores[j].Release(ctx, h) // best effort: the lease ends it anyway
		}
		if err != nil {
			return nil, "", fmt.Errorf("taking the apply lock in %s: %w", s.Where(), err)
		}
		return other, s.Where(), nil
	}
	return nil, "", nil
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

// renew moves the lease on every third of it until Release.
func (l *Lock) renew(now func() time.Time) {
	defer l.done.Done()
	t := time.NewTicker(l.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.holder.Expires = now().Add(l.lease)
			for _, s := range l.stores {
				if err := s.Renew(context.Background(), l.holder); err != nil {
					l.mu.Lock()
					if l.err == nil {
						l.err = fmt.Errorf("renewing the apply lock in %s: %w", s.Where(), err)
					}
					l.mu.Unlock()
				}
			}
		}
	}
}

// Release stops renewing and removes every hold, and returns the first
// renewal or release failure: a run that lost its lease mid-way says so.
func (l *Lock) Release(ctx context.Context) error {
	close(l.stop)
	l.done.Wait()
	var errs []error
	l.mu.Lock()
	if l.err != nil {
		errs = append(errs, l.err)
	}
	l.mu.Unlock()
	for i := len(l.stores) - 1; i >= 0; i-- {
		if err := l.stores[i].Release(ctx, l.holder); err != nil {
			errs = append(errs, fmt.Errorf("releasing the apply lock in %s: %w (its lease runs out by itself)", l.stores[i].Where(), err))
		}
	}
	return errors.Join(errs...)
}
