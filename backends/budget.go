package backends

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// A provider's request budget (site.cue's rate: {requests, per}) holds
// for a whole run, whatever number of steps talk to the provider in
// parallel: Cloudflare refuses every call of a token for five minutes
// once it sent 1,200 in five, locking out every tenant of the account.
// So a run keeps one Budget per provider (Run.Budget), and every client
// of that provider sends through it (PaceTransport).
//
// A Budget guarantees that no window of Per holds more than Requests
// requests, as the server sees them: a request holds its slot from
// before it is sent until Per after its answer came, so the server,
// which sees it between the two, never counts one too many however its
// latency varies. Requests are also spaced Per/Requests apart, so that
// a run spends its budget evenly instead of in one burst followed by a
// wait of a whole window.
//
// Where the server says how much of its own budget is left (the IETF
// draft headers Cloudflare sends: Ratelimit: "default";r=50;t=30 is 50
// requests left for 30 s), the next request waits at least t/r, and
// none is sent while r is 0; a 429's Retry-After holds every request of
// the provider for as long.

// Budget paces the requests of one run to one provider.
type Budget struct {
	rate model.Rate
	gap  time.Duration // Per / Requests

	mu      sync.Mutex
	free    []time.Time   // per slot, when it may be taken again; inFlight while its request is out
	next    time.Time     // the earliest next send, by spacing and the server's Ratelimit
	hold    time.Time     // no send before this (a 429's Retry-After)
	changed chan struct{} // closed and replaced when a slot frees
}

// inFlight marks a slot whose request has not been answered yet.
var inFlight = time.Unix(1<<40, 0)

// NewBudget returns a budget of r (r.Requests ≥ 1, r.Per > 0).
func NewBudget(r model.Rate) *Budget {
	return &Budget{rate: r, gap: r.Per / time.Duration(r.Requests),
		free: make([]time.Time, r.Requests), changed: make(chan struct{})}
}

// Rate is the budget's rate.
func (b *Budget) Rate() model.Rate { return b.rate }

// Take waits until a request may be sent within the budget, or ctx
// ends, and returns what to call once its answer came (or it failed).
func (b *Budget) Take(ctx context.Context) (done func(), err error) {
	for {
		b.mu.Lock()
		now := time.Now()
		slot := 0
		for i, t := range b.free {
			if t.Before(b.free[slot]) {
				slot = i
			}
		}
		at := b.free[slot]
		if b.next.After(at) {
			at = b.next
		}
		if b.hold.After(at) {
			at = b.hold
		}
		if !at.After(now) {
			b.free[slot] = inFlight
			b.next = now.Add(b.gap)
			b.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { b.release(slot) }) }, nil
		}
		changed := b.changed
		b.mu.Unlock()
		if err := b.wait(ctx, at.Sub(now), at == inFlight, changed); err != nil {
			return nil, err
		}
	}
}

// wait waits d (forever when untimed) or until changed is closed or ctx
// ends.
func (b *Budget) wait(ctx context.Context, d time.Duration, untimed bool, changed chan struct{}) error {
	var timer <-chan time.Time
	if !untimed {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
	case <-changed:
	case <-ctx.Done():
		return fmt.Errorf("waiting to send within the provider's budget of %s: %w", b.rate, context.Cause(ctx))
	}
	return nil
}

func (b *Budget) release(slot int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free[slot] = time.Now().Add(b.rate.Per)
	close(b.changed)
	b.changed = make(chan struct{})
}

// Observe reads what an answer says of the server's own budget: its
// Ratelimit header, and a 429's Retry-After.
func (b *Budget) Observe(status int, h http.Header) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if left, reset, ok := ParseRatelimit(h.Get("Ratelimit")); ok && reset > 0 {
		wait := reset
		if left > 0 {
			wait = reset / time.Duration(left)
		}
		if t := now.Add(wait); left == 0 || t.After(b.next) {
			b.next = maxTime(b.next, t)
		}
	}
	if status == http.StatusTooManyRequests {
		if d := RetryAfter(h.Get("Retry-After")); d > 0 {
			b.hold = maxTime(b.hold, now.Add(d))
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ParseRatelimit reads the first item of a Ratelimit header
// ("default";r=50;t=30): r requests left, the window resetting in t
// seconds.
func ParseRatelimit(h string) (left int, reset time.Duration, ok bool) {
	item, _, _ := strings.Cut(h, ",")
	r, t := -1, -1
	for _, p := range strings.Split(item, ";") {
		k, v, found := strings.Cut(strings.TrimSpace(p), "=")
		if !found {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			continue
		}
		switch k {
		case "r":
			r = n
		case "t":
			t = n
		}
	}
	if r < 0 || t < 0 {
		return 0, 0, false
	}
	return r, time.Duration(t) * time.Second, true
}

// RetryAfter reads a Retry-After header in seconds (the form Cloudflare
// sends) or as an HTTP date; 0 when absent or unreadable.
func RetryAfter(h string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// Budget is the run's budget for provider (by name) of rate r, made on
// first use and shared by every client of the provider in the run; nil
// when r is nil (no budget).
func (r *Run) Budget(provider string, rate *model.Rate) *Budget {
	if r == nil || rate == nil || rate.Requests < 1 || rate.Per <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.budgets == nil {
		r.budgets = map[string]*Budget{}
	}
	b := r.budgets[provider]
	if b == nil {
		b = NewBudget(*rate)
		r.budgets[provider] = b
	}
	return b
}

// PaceTransport sends every request through b (Take before, done after
// its answer's headers, which it reads with Observe); a nil b returns
// next.
func PaceTransport(next http.RoundTripper, b *Budget) http.RoundTripper {
	if b == nil {
		return next
	}
	return &paceTransport{next: next, budget: b}
}

type paceTransport struct {
	next   http.RoundTripper
	budget *Budget
}

func (t *paceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	done, err := t.budget.Take(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	defer done()
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.budget.Observe(resp.StatusCode, resp.Header)
	}
	return resp, err
}
