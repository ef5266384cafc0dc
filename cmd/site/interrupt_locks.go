package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/backends/lock"
)

// What a second Ctrl-C does with apply's locks on its way out (README,
// "Ctrl-C"). Releasing a tenant's lock lets the next apply of it start,
// observe and write; a write of this run still in flight (a PowerDNS
// PATCH sent and not answered, a Cloudflare batch, a libvirt call) may
// land after the release has, since they travel to different servers or
// down different connections, and then two runs write beside each
// other, which the lock exists to prevent. So, within releaseOnExit in
// all:
//
//   - A tenant none of whose steps is in flight has its lock released
//     at once: an interrupted walk starts no step, and a step it does
//     start was reported in flight before the interrupt returned
//     (engine.Hook.Started), so nothing of that tenant is written any
//     more.
//   - A tenant with a step in flight is released once its steps have
//     finished, which is when their requests have been answered. It
//     waits for the step, not for the request in flight: a step between
//     two requests may still send the next while the process lives.
//     A tenant whose step is still in flight when the time is up keeps
//     its lock until the lease runs out, and site says so, with the time
//     and site unlock: a write may still land until then. (Releasing it
//     anyway, or waiting without a bound, were the other choices: the
//     first lets the next run write beside this one, the second keeps
//     a user who pressed Ctrl-C twice waiting on a hung server.)
//   - An Acquire in flight (a claim written, the read after it
//     unanswered) is waited for too, and what it took let go of: a claim
//     left behind delays or refuses the next apply for its whole lease.
//     One still unanswered when the time is up is named, with the entry
//     it may leave behind.

// takingLock is an Acquire of a tenant's lock in flight: its requests
// may be on their way to the stores.
type takingLock struct {
	tenant string
	done   chan struct{} // closed once Acquire returned and what it took was kept or let go of
	mu     sync.Mutex
	tried  lock.Holder // what its latest try writes, lease included
	took   *lock.Lock  // what it took, when the exit came first and let go of it
}

// trying hears of each try of the Acquire (lock.Options.Trying).
func (k *takingLock) trying(h lock.Holder) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tried = h
}

func (k *takingLock) holder() lock.Holder {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.tried
}

// taking notes that the run starts taking tenant's lock; false once the
// locks were let go of for the exit: take none then.
func (t *tenantLocks) taking(tenant string) (*takingLock, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	k := &takingLock{tenant: tenant, done: make(chan struct{})}
	if t.acquiring == nil {
		t.acquiring = map[*takingLock]bool{}
	}
	t.acquiring[k] = true
	return k, true
}

// took ends k with what its Acquire returned (l is nil when it failed,
// and then left nothing of its own behind): it keeps l, or, when the
// locks were let go of for the exit meanwhile, lets go of l with ctx
// and reports false. The exit waits for it.
func (t *tenantLocks) took(ctx context.Context, k *takingLock, l *lock.Lock) bool {
	defer close(k.done)
	t.mu.Lock()
	delete(t.acquiring, k)
	closed := t.closed
	if !closed && l != nil {
		t.held = append(t.held, tenantLock{k.tenant, l})
	}
	t.mu.Unlock()
	if closed && l != nil {
		k.mu.Lock()
		k.took = l
		k.mu.Unlock()
		_ = l.Release(ctx) // Released says how it went
	}
	return !closed
}

// keptLock is a tenant's apply lock that outlives the exit, and why:
// its steps in flight, a request taking it unanswered, or else a
// release that did not finish.
type keptLock struct {
	tenant string
	until  time.Time     // when its lease runs out
	within time.Duration // the time the exit had
	// inFlight are the tenant's steps still in flight: the lock was
	// not released, since a write of them may still land.
	inFlight []string
	// taking is set when a request taking the lock was unanswered: the
	// entry it may have written.
	taking *lock.Holder
}

// stepsInFlight reads the walk: the steps in flight, and a channel
// closed when one finishes (progress.inFlightNow).
type stepsInFlight func() ([]string, <-chan struct{})

// releaseForExit lets go of the locks for the exit of a second Ctrl-C,
// within d in all, as the comment at the top of this file says, and
// returns those that outlive it. It says through say what it waits
// for. No lock is taken after.
func (t *tenantLocks) releaseForExit(d time.Duration, steps stepsInFlight, say func(string)) []keptLock {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	t.mu.Lock()
	t.closed = true
	held := slices.Clone(t.held)
	taking := slices.Collect(maps.Keys(t.acquiring))
	tenantOf := t.tenantOf
	t.mu.Unlock()
	slices.SortFunc(taking, func(a, b *takingLock) int { return strings.Compare(a.tenant, b.tenant) })

	var wg sync.WaitGroup
	for _, k := range taking {
		say(fmt.Sprintf("site: waiting up to %s for the requests taking tenant %s's apply lock to be answered, to remove the entries they wrote", d, k.tenant))
		wg.Go(func() {
			select {
			case <-k.done:
			case <-ctx.Done():
			}
		})
	}
	busy := releaseWhenIdle(ctx, d, held, steps, tenantOf, func(h tenantLock) {
		wg.Go(func() { _ = h.l.Release(ctx) }) // Released says how it went
	}, say)
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-ctx.Done(): // a store that does not heed ctx is not waited for
	}
	return keptAtExit(held, busy, taking, d)
}

// releaseWhenIdle calls release for each of held once none of its
// tenant's steps is in flight, until ctx (which ends within d) ends,
// and returns the steps still in flight then of each tenant it did not
// release.
func releaseWhenIdle(ctx context.Context, d time.Duration, held []tenantLock, steps stepsInFlight, tenantOf map[string]string, release func(tenantLock), say func(string)) map[string][]string {
	waiting, told := held, map[string]bool{}
	for {
		ids, stepDone := steps()
		busy := map[string][]string{}
		for _, id := range ids {
			if tenant := tenantOf[id]; tenant != "" {
				busy[tenant] = append(busy[tenant], id)
			}
		}
		var still []tenantLock
		for _, h := range waiting {
			if len(busy[h.tenant]) == 0 {
				release(h)
				continue
			}
			still = append(still, h)
			if !told[h.tenant] {
				told[h.tenant] = true
				say(fmt.Sprintf("site: waiting up to %s for %s to finish before releasing tenant %s's apply lock: a write of %s may still land",
					d, strings.Join(busy[h.tenant], ", "), h.tenant, them(len(busy[h.tenant]))))
			}
		}
		waiting = still
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-stepDone:
		case <-ctx.Done():
			left := map[string][]string{}
			for _, h := range waiting {
				left[h.tenant] = busy[h.tenant]
			}
			return left
		}
	}
}

// keptAtExit lists the locks that outlive the exit: those held whose
// tenant is busy (its steps in flight), or whose release did not
// finish, and those an Acquire still unanswered may have taken.
func keptAtExit(held []tenantLock, busy map[string][]string, taking []*takingLock, within time.Duration) []keptLock {
	var kept []keptLock
	for _, h := range held {
		switch {
		case len(busy[h.tenant]) > 0:
			kept = append(kept, keptLock{tenant: h.tenant, until: h.l.Holder().Expires, inFlight: busy[h.tenant], within: within})
		case !h.l.Released():
			kept = append(kept, keptLock{tenant: h.tenant, until: h.l.Holder().Expires, within: within})
		}
	}
	for _, k := range taking {
		select {
		case <-k.done:
			k.mu.Lock()
			l := k.took
			k.mu.Unlock()
			if l != nil && !l.Released() {
				kept = append(kept, keptLock{tenant: k.tenant, until: l.Holder().Expires, within: within})
			}
		default:
			h := k.holder()
			kept = append(kept, keptLock{tenant: k.tenant, until: h.Expires, taking: &h, within: within})
		}
	}
	return kept
}

// say tells why k's lock outlives this run, until when, and how to end
// it sooner.
func (k keptLock) say(now time.Time) string {
	until := fmt.Sprintf("%s (in %s)", k.until.UTC().Format(time.RFC3339), k.until.Sub(now).Round(time.Second))
	switch {
	case len(k.inFlight) > 0:
		return fmt.Sprintf("site: the apply lock of tenant %s stays held: %s %s still in flight after %s, so a write of %s may still land; the next site apply of %s is refused until its lease runs out at %s, or, once no request of %s can land any more (its server answered, or was restarted), site unlock %s --ack GATE-LOCK-BREAK breaks it",
			k.tenant, strings.Join(k.inFlight, ", "), wasWere(len(k.inFlight)), k.within, them(len(k.inFlight)), k.tenant, until, them(len(k.inFlight)), k.tenant)
	case k.taking != nil:
		return fmt.Sprintf("site: a request taking tenant %s's apply lock was still unanswered after %s: the entry it wrote, if it was written (this run's: %s), stays until its lease runs out at %s, and the next site apply of %s waits for it or is refused until then, or site unlock %s --ack GATE-LOCK-BREAK removes it",
			k.tenant, k.within, k.taking, until, k.tenant, k.tenant)
	}
	return fmt.Sprintf("site: the apply lock of tenant %s stays held: releasing it did not finish within %s, so the next site apply of it is refused until its lease runs out at %s, or site unlock %s --ack GATE-LOCK-BREAK breaks it",
		k.tenant, k.within, until, k.tenant)
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
