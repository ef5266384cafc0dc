package backends

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// A server that stops answering (a PowerDNS stopped with SIGSTOP, a
// proxy that holds the connection) leaves a run silent for up to a
// request's timeout, and every retry of it. So a driver names each
// request while it waits for the answer (Run.Await, or AwaitTransport
// for an HTTP client), and the run tells whoever set Run.Slow about one
// that takes long, first after SlowAfter, then each time the wait has
// doubled; an interrupt's message names them all (Run.Awaiting).

// DefaultSlowAfter is how long a request goes unanswered before
// Run.Slow first hears of it.
const DefaultSlowAfter = 5 * time.Second

// Awaited is a request sent and not yet answered.
type Awaited struct {
	// Server names whom it was sent to, for a person: "PowerDNS pdns
	// (http://127.0.0.1:8081)". Never a credential.
	Server string
	// Request is what was asked: "GET zones/acme.example.".
	Request string
	Since   time.Time
}

// awaiting is a Run's requests in flight; a Run may be a literal, so
// it is made on first use.
type awaiting struct {
	mu   sync.Mutex
	next int
	reqs map[int]*awaitedReq
}

type awaitedReq struct {
	Awaited
	mu      sync.Mutex // held while Slow is told of it, so done waits for that
	stopped bool
	timer   *time.Timer
}

// Await names a request to server while the caller waits for its
// answer; call done once it came (or failed). Set Run.Slow and
// Run.SlowAfter before the run's first request: they are read without
// a lock.
func (r *Run) Await(server, request string) (done func()) {
	a := &awaitedReq{Awaited: Awaited{Server: server, Request: request, Since: time.Now()}}
	r.await.mu.Lock()
	if r.await.reqs == nil {
		r.await.reqs = map[int]*awaitedReq{}
	}
	id := r.await.next
	r.await.next++
	r.await.reqs[id] = a
	r.await.mu.Unlock()
	if r.Slow != nil {
		after := r.SlowAfter
		if after <= 0 {
			after = DefaultSlowAfter
		}
		var tell func()
		tell = func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.stopped {
				return
			}
			waited := time.Since(a.Since)
			r.Slow(a.Awaited, waited)
			// Sparingly: at 5 s, 10 s, 20 s, 40 s, ... of one wait.
			a.timer = time.AfterFunc(max(waited, after), tell)
		}
		a.mu.Lock()
		a.timer = time.AfterFunc(after, tell)
		a.mu.Unlock()
	}
	return func() {
		a.mu.Lock()
		a.stopped = true
		if a.timer != nil {
			a.timer.Stop()
		}
		a.mu.Unlock()
		r.await.mu.Lock()
		delete(r.await.reqs, id)
		r.await.mu.Unlock()
	}
}

// Awaiting returns the requests in flight, the longest waited for
// first.
func (r *Run) Awaiting() []Awaited {
	r.await.mu.Lock()
	out := make([]Awaited, 0, len(r.await.reqs))
	for _, a := range r.await.reqs {
		out = append(out, a.Awaited)
	}
	r.await.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Awaited) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Server+a.Request, b.Server+b.Request)
	})
	return out
}

// AwaitTransport is next, naming each request to run (Run.Await) until
// its answer's headers come: server names whom, and request says what
// from the request (nil: its method and path). A nil run returns next.
func AwaitTransport(next http.RoundTripper, run *Run, server string, request func(*http.Request) string) http.RoundTripper {
	if run == nil {
		return next
	}
	if request == nil {
		request = func(r *http.Request) string { return r.Method + " " + r.URL.Path }
	}
	return &awaitTransport{next: next, run: run, server: server, request: request}
}

type awaitTransport struct {
	next    http.RoundTripper
	run     *Run
	server  string
	request func(*http.Request) string
}

func (t *awaitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	defer t.run.Await(t.server, t.request(r))()
	return t.roundTripWithin(r)
}
