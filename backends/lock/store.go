package lock

import "context"

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
