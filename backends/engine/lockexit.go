package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/words"
)

// What a second Ctrl-C does with apply's locks on its way out (README,
// "Ctrl-C"). Releasing a tenant's lock lets the next apply of it start,
// observe and write; a write of this run still in flight (a PowerDNS
// PATCH sent and not answered, a Cloudflare batch, a libvirt call) may
// land after the release has, since they travel to different servers or
// down different connections, and then two runs write beside each
// other, which the lock exists to prevent. So, within Options.ExitWithin in
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
//   - An Acquire that fails meanwhile may have written an entry all the
//     same (a request that timed out had reached its store, or the
//     store's own removal after a failed read failed), which its store
//     does not know of. Its entries are removed by the run's holder ID,
//     which no other run has (a store's Release removes only that ID's
//     entry), and named at the exit: with why its removal failed, or
//     because a request of it still on its way may write it again.

// takingLock is an Acquire of a tenant's lock in flight: its requests
// may be on their way to the stores.
type takingLock struct {
	tenant string
	stores []lock.Store  // where its tries write
	done   chan struct{} // closed once Acquire returned and what it took or may have written was kept or let go of
	mu     sync.Mutex
	tried  lock.Holder // what its latest try writes, lease included
	took   *lock.Lock  // what it took, when the exit came first and let go of it
	// failed says why the Acquire failed, when the exit came first and
	// a try of it may have written an entry (mayHaveWritten); removing
	// says why removing that entry failed, "" once it was removed.
	failed, removing string
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

// taking notes that the run starts taking tenant's lock in stores;
// false once the locks were let go of for the exit: take none then.
func (t *tenantLocks) taking(tenant string, stores []lock.Store) (*takingLock, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	k := &takingLock{tenant: tenant, stores: stores, done: make(chan struct{})}
	if t.acquiring == nil {
		t.acquiring = map[*takingLock]bool{}
	}
	t.acquiring[k] = true
	return k, true
}

// took ends k with what its Acquire returned (l, or err when it
// failed): it keeps l, or, when the locks were let go of for the exit
// meanwhile, lets go of l, or of the entry a failed Acquire may have
// written, with ctx, and reports false. The exit waits for it.
func (t *tenantLocks) took(ctx context.Context, k *takingLock, l *lock.Lock, err error) bool {
	defer close(k.done)
	t.mu.Lock()
	delete(t.acquiring, k)
	closed := t.closed
	if !closed && l != nil {
		t.held = append(t.held, tenantLock{k.tenant, l})
	}
	redact := t.redact
	t.mu.Unlock()
	switch {
	case closed && l != nil:
		k.mu.Lock()
		k.took = l
		k.mu.Unlock()
		_ = l.Release(ctx) // Released says how it went
	case closed && mayHaveWritten(err):
		k.removeTried(ctx, err, redact)
	}
	return !closed
}

// mayHaveWritten reports whether an Acquire that failed with err may
// have left an entry of its own: any failure of a try may, but not a
// wait for another run's lock that ran out (a try that found another
// holder leaves nothing of its own) or was interrupted between tries.
func mayHaveWritten(err error) bool {
	return err != nil && !errors.Is(err, errWaitInterrupted) && !errors.As(err, new(*lock.HeldError))
}

// removeTried removes from k's stores the entries of the holder its
// tries wrote (by its ID, only ever this run's), after its Acquire
// failed with err, and notes how it went for the exit. Errors are
// redacted: a server may echo a credential.
func (k *takingLock) removeTried(ctx context.Context, err error, redact func(string) string) {
	if redact == nil {
		redact = func(s string) string { return s } // no credential was read yet
	}
	h := k.holder()
	var eg errgroup.Group
	errs := make([]error, len(k.stores))
	for i, s := range k.stores {
		eg.Go(func() error {
			errs[i] = s.Release(ctx, h)
			return nil
		})
	}
	_ = eg.Wait() // the goroutines report through errs
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failed = redact(err.Error())
	if err := errors.Join(errs...); err != nil {
		k.removing = redact(err.Error())
	}
}

// LockKept is a tenant's apply lock that outlives the exit of a second
// interrupt, and why: its steps in flight, a request taking it
// unanswered or failed (the entry it may leave), or else a release that
// did not finish. Now is when it was said.
type LockKept struct {
	Tenant string
	Until  time.Time     // when its lease runs out
	Within time.Duration // the time the exit had
	// InFlight are the tenant's steps still in flight: the lock was
	// not released, since a write of them may still land.
	InFlight []string
	// Taking is set when a request taking the lock was unanswered, or
	// failed: the entry it may have written.
	Taking *lock.Holder
	// Failed says why the Acquire failed, and Removing why removing
	// the entry it may have written failed ("" once it was removed).
	Failed, Removing string
	Now              time.Time
}

// stepsInFlight reads the walk: the steps in flight, and a channel
// closed when one finishes (tracker.inFlightNow).
type stepsInFlight func() ([]string, <-chan struct{})

// releaseForExit lets go of the locks for the exit of a second Ctrl-C,
// within d in all, as the comment at the top of this file says, and
// returns those that outlive it. It says through say what it waits
// for. No lock is taken after. ctx carries the run, interrupted by now:
// a release whose request failed is not tried again (a retry would
// send what the user asked to stop sending, and eat the bound).
func (t *tenantLocks) releaseForExit(ctx context.Context, d time.Duration, steps stepsInFlight, say func(Event)) []LockKept {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
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
		say(ExitWaits{Tenant: k.tenant, Within: d})
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
func releaseWhenIdle(ctx context.Context, d time.Duration, held []tenantLock, steps stepsInFlight, tenantOf map[string]string, release func(tenantLock), say func(Event)) map[string][]string {
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
				say(ExitWaits{Tenant: h.tenant, Steps: busy[h.tenant], Within: d})
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
func keptAtExit(held []tenantLock, busy map[string][]string, taking []*takingLock, within time.Duration) []LockKept {
	var kept []LockKept
	for _, h := range held {
		switch {
		case len(busy[h.tenant]) > 0:
			kept = append(kept, LockKept{Tenant: h.tenant, Until: h.l.Holder().Expires, InFlight: busy[h.tenant], Within: within})
		case !h.l.Released():
			kept = append(kept, LockKept{Tenant: h.tenant, Until: h.l.Holder().Expires, Within: within})
		}
	}
	for _, k := range taking {
		select {
		case <-k.done:
			k.mu.Lock()
			l, failed, removing := k.took, k.failed, k.removing
			k.mu.Unlock()
			if l != nil && !l.Released() {
				kept = append(kept, LockKept{Tenant: k.tenant, Until: l.Holder().Expires, Within: within})
			}
			if failed != "" {
				h := k.holder()
				kept = append(kept, LockKept{Tenant: k.tenant, Until: h.Expires, Taking: &h, Failed: failed, Removing: removing, Within: within})
			}
		default:
			h := k.holder()
			kept = append(kept, LockKept{Tenant: k.tenant, Until: h.Expires, Taking: &h, Within: within})
		}
	}
	return kept
}

// String tells why k's lock outlives this run, until when, and how to
// end it sooner.
func (k LockKept) String() string {
	until := fmt.Sprintf("%s (in %s)", k.Until.UTC().Format(time.RFC3339), k.Until.Sub(k.Now).Round(time.Second))
	switch {
	case len(k.InFlight) > 0:
		return fmt.Sprintf("site: the apply lock of tenant %s stays held: %s %s still in flight after %s, so a write of %s may still land; the next site apply of %s is refused until its lease runs out at %s, or, once no request of %s can land any more (its server answered, or was restarted), site unlock %s --ack GATE-LOCK-BREAK breaks it",
			k.Tenant, strings.Join(k.InFlight, ", "), words.Plural(len(k.InFlight), "was", "were"), k.Within, words.Plural(len(k.InFlight), "it", "them"), k.Tenant, until, words.Plural(len(k.InFlight), "it", "them"), k.Tenant)
	case k.Failed != "" && k.Removing != "":
		return fmt.Sprintf("site: a request taking tenant %s's apply lock failed (%s), and removing the entry it may have written failed too (%s): that entry, if it was written (this run's: %s), stays until its lease runs out at %s, and the next site apply of %s waits for it or is refused until then, or site unlock %s --ack GATE-LOCK-BREAK removes it",
			k.Tenant, k.Failed, k.Removing, k.Taking, until, k.Tenant, k.Tenant)
	case k.Failed != "":
		return fmt.Sprintf("site: a request taking tenant %s's apply lock failed (%s): site removed the entry it may have written (this run's: %s); should a request of it that timed out still reach its store after that, the entry stays until its lease runs out at %s, and the next site apply of %s waits for it or is refused until then, or site unlock %s --ack GATE-LOCK-BREAK removes it",
			k.Tenant, k.Failed, k.Taking, until, k.Tenant, k.Tenant)
	case k.Taking != nil:
		return fmt.Sprintf("site: a request taking tenant %s's apply lock was still unanswered after %s: the entry it wrote, if it was written (this run's: %s), stays until its lease runs out at %s, and the next site apply of %s waits for it or is refused until then, or site unlock %s --ack GATE-LOCK-BREAK removes it",
			k.Tenant, k.Within, k.Taking, until, k.Tenant, k.Tenant)
	}
	return fmt.Sprintf("site: the apply lock of tenant %s stays held: releasing it did not finish within %s, so the next site apply of it is refused until its lease runs out at %s, or site unlock %s --ack GATE-LOCK-BREAK breaks it",
		k.Tenant, k.Within, until, k.Tenant)
}
