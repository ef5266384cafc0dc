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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/site-tools/site/compiler/visible"
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
// time, command and when its lease runs out. Host and command are what
// a store said, which need not be what site wrote (a file anyone could
// write, an entry an API client wrote): they are shown through
// visible.Short, so a newline in them never starts a line of its own (a
// line starting ::error:: in a pull-request check's log is a workflow
// command).
func (h Holder) String() string {
	return fmt.Sprintf("host %s, pid %d, started %s, command \"%s\", lease until %s",
		visible.Short(h.Host), h.PID, h.Start.UTC().Format(time.RFC3339), visible.Short(strings.ReplaceAll(h.Command, `"`, `\"`)), h.Expires.UTC().Format(time.RFC3339))
}

// validID is the form of a holder's ID as NewHolder makes it.
var validID = regexp.MustCompile(`^[0-9A-F]{16}$`)

// ValidID reports whether id is one NewHolder could have made. A
// store's entry whose ID is anything else is not a site lock: an ID is
// an opaque token, compared and written back as it is, and never a part
// of a path or a name built from what a store said.
func ValidID(id string) bool { return validID.MatchString(id) }

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

// takeoverKey carries, in the context Acquire gives a store's Try, the
// function that hears of the expired holds the store removed.
type takeoverKey struct{}

// WatchTakeovers returns ctx carrying f, which ReportTakeover calls; a
// store's Try given that ctx reports to f. Acquire uses it (store tests
// too).
func WatchTakeovers(ctx context.Context, f func(dead Holder)) context.Context {
	return context.WithValue(ctx, takeoverKey{}, f)
}

// ReportTakeover tells Acquire, through the ctx its Try was given, that
// the store removed dead's expired hold on the way to taking the lock; a
// store calls it for every expired holder it removes. Acquire lists them
// in Lock.TakenOver, for the caller to say so: the dead run may have
// stopped half-way. Outside Acquire it does nothing.
func ReportTakeover(ctx context.Context, dead Holder) {
	if f, ok := ctx.Value(takeoverKey{}).(func(Holder)); ok {
		f(dead)
	}
}

// HeldTaker is a Store that can also be taken in one step, which
// tryAll uses for every store after the first: write h as held, read
// the store once, and when another entry is held by then, remove h's
// and return that holder. Two runs that each write held and then read
// never both hold: the later reader sees the earlier one's entry.
// What the claim round of Try adds is order among runs racing for the
// same store, and after the first store there is no such race among
// runs that see the same stores (see tryAll).
type HeldTaker interface {
	TryHeld(ctx context.Context, h Holder) (other *Holder, err error)
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
	if e.Holder.State == Claim {
		return fmt.Sprintf("%s; %s: run again in a moment, give --lock-timeout to wait, or, if that run is gone, break the claim with site unlock %s --ack GATE-LOCK-BREAK",
			Busy(e.Tenant, e.Holder, e.Where), waited, e.Tenant)
	}
	return fmt.Sprintf("%s; %s: wait for it to finish and run again, give --lock-timeout to wait, or, if that run is dead, wait for its lease to run out or break the lock with site unlock %s --ack GATE-LOCK-BREAK",
		Busy(e.Tenant, e.Holder, e.Where), waited, e.Tenant)
}

// Busy says what keeps a run from tenant's lock: another run applying
// the tenant (a hold in where), or one taking the lock (a claim), which
// is also what a run cut off half-way through taking it leaves behind
// until its lease ends. A claim told as an apply sent the operator
// looking for a run that was not there.
func Busy(tenant string, other Holder, where string) string {
	if other.State == Claim {
		return fmt.Sprintf("tenant %s's apply lock is being taken by another run (%s), whose claim in %s was not followed by a hold: a run cut off while taking the lock leaves its claim behind, having changed nothing, until its lease runs out at %s",
			tenant, other, where, other.Expires.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("tenant %s is being applied by another run (%s) holding %s", tenant, other, where)
}

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
