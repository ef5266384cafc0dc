package cloudflare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	cf "github.com/cloudflare/cloudflare-go"
	"golang.org/x/time/rate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/model"
)

// DefaultAPIURL is Cloudflare's public v4 API.
const DefaultAPIURL = "https://api.cloudflare.com/client/v4"

// EnvAPIURL, when set, replaces the API base URL of every Cloudflare zone
// (the spec's api_url included). It exists to point a spec that names no
// api_url at a test server; it is read through Run.Getenv.
const EnvAPIURL = "SITE_CLOUDFLARE_API_URL"

// newAPI builds a cloudflare-go v0 client whose transport, not the
// client, handles retries.
//
// The v0 client retries 429 and 5xx itself, ignores Retry-After, and
// after the last attempt returns an untyped error ("exceeded available
// rate limit retries"), so nothing can tell a rate limit from any other
// failure. It is therefore configured with UsingRetryPolicy(0, 0, 0): one
// attempt per call. The retrying transport below honours Retry-After on
// 429 for every method (a 429 request was not processed), retries 5xx and
// network errors only for GET (a failed POST may have committed), with
// bounded exponential backoff and jitter, and returns a typed
// *TransientError when it gives up (at once for a 5xx on other methods,
// so that the client's untyped "internal server error" never reaches
// Classify).
//
// Rate: Cloudflare allows 1,200 requests per five minutes per token (4
// per second). The client's own limiter is per client, and site builds
// one client per zone step, with steps running in parallel; so the
// transport waits on one limiter per token and API URL, shared by every
// zone and every retry, and the client's limiter is opened wide.
//
// Each try is named to run while it waits for its answer (Run.Await),
// as "Cloudflare PROVIDER (API URL)" and its method and path, so that
// a server that holds a request is named; a nil run names nothing.
func (d *Driver) newAPI(baseURL, token string, counter *calls, run *backends.Run, provider string, rate *model.Rate) (*cf.API, error) {
	server := fmt.Sprintf("Cloudflare %s (%s)", provider, baseURL)
	capped := backends.CapAnswers(d.transport(), d.maxAnswer(), "Cloudflare provider "+provider,
		fmt.Sprintf("no Cloudflare answer site reads is this large (a page of %d records, a batch of %d): "+
			"check the api_url of provider %s in site.cue (or %s, which replaces it when set) and any proxy between site and the API",
			d.perPage(), MaxChunkSize, provider, EnvAPIURL))
	// A provider with a rate (site.cue's, else Cloudflare's documented
	// limit) is paced by the run's budget for it, which also reads the
	// Ratelimit and Retry-After headers; the driver's own limiter paces
	// a provider without one, and every provider when Driver.RPS is set.
	var budget *backends.Budget
	if d.RPS <= 0 {
		budget = run.Budget(provider, rate)
	}
	next := recordDelivery{next: backends.PaceTransport(backends.AwaitTransport(capped, run, server, apiRequest(baseURL)), budget)}
	rt := &retrying{next: next, attempts: d.retries() + 1, maxWait: d.maxWait(), counter: counter,
		server: server, name: apiRequest(baseURL), say: run.Say, within: backends.RequestTimeoutOf(backends.WithRun(context.Background(), run))}
	if budget == nil {
		rt.limiter = d.limiter(baseURL, token)
	}
	// Redirects are followed only as backends/endpoint allows: net/http
	// keeps the Authorization header on a redirect to another port of
	// the same host, and re-sends a 307's body to any host.
	hc := endpoint.Client(checkedReads{next: rt})
	hc.Timeout = 2 * time.Minute
	return cf.NewWithAPIToken(token,
		cf.BaseURL(baseURL),
		cf.HTTPClient(hc),
		cf.UsingRetryPolicy(0, 0, 0),
		cf.UsingRateLimit(math.MaxFloat64),
		cf.UserAgent("site"),
	)
}

// maxRecordJSON is more than one record takes in an answer: a record
// is at most 4,096 bytes in wire format (Cloudflare's "DNS record
// types" page), which JSON escapes may grow sixfold (\u00XX) to 24 KiB,
// beside a comment of at most 500 characters, its tags and some 1 KiB
// of fields (id, zone, dates, settings, meta).
const maxRecordJSON = 32 << 10

// maxAnswer bounds what site reads of one answer. The largest are a
// page of records and a batch's answer, which holds the records it
// wrote: at most max(per page, MaxChunkSize) records of maxRecordJSON,
// and 1 MiB for the envelope and the rest, rounded up to whole MiB
// (158 MiB with the default 5,000 records a page).
func (d *Driver) maxAnswer() int64 {
	if d.MaxAnswerBytes > 0 {
		return d.MaxAnswerBytes
	}
	n := int64(max(d.perPage(), MaxChunkSize))*maxRecordJSON + 1<<20
	return (n + 1<<20 - 1) &^ (1<<20 - 1)
}

// apiRequest names a request by its method and its path below the API
// URL's: "GET zones/ID/dns_records".
func apiRequest(baseURL string) func(*http.Request) string {
	prefix := "/"
	if u, err := url.Parse(baseURL); err == nil {
		prefix = strings.TrimRight(u.Path, "/") + "/"
	}
	return func(r *http.Request) string {
		return r.Method + " " + strings.TrimPrefix(r.URL.Path, prefix)
	}
}

// limiter returns the limiter shared by every client of one token at one
// API URL. Tokens are kept only as hashes.
func (d *Driver) limiter(baseURL, token string) *rate.Limiter {
	h := sha256.Sum256([]byte(baseURL + "\x00" + token))
	key := hex.EncodeToString(h[:])
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.limiters == nil {
		d.limiters = map[string]*rate.Limiter{}
	}
	l, ok := d.limiters[key]
	if !ok {
		l = rate.NewLimiter(rate.Limit(d.rps()), 1)
		d.limiters[key] = l
	}
	return l
}

func (d *Driver) transport() http.RoundTripper {
	if d.Transport != nil {
		return d.Transport
	}
	return http.DefaultTransport
}

// calls counts the API requests of one client, every try of a retried
// one included; writes are those of any method but GET, so the report
// can say what a run read and what it changed.
type calls struct{ n, writes atomic.Int64 }

func (c *calls) add(method string) {
	c.n.Add(1)
	if method != http.MethodGet {
		c.writes.Add(1)
	}
}

// since returns the requests, reads and writes counted after start
// (the counts were start's then).
func (c *calls) since(start [2]int64) (requests, reads, writes int) {
	n, w := c.n.Load()-start[0], c.writes.Load()-start[1]
	return int(n), int(n - w), int(w)
}

// mark is the counts now, for since.
func (c *calls) mark() [2]int64 { return [2]int64{c.n.Load(), c.writes.Load()} }

// TransientError is a failure worth retrying later: a 429 or 5xx answer,
// or no answer, after the transport's own bounded retries.
type TransientError struct {
	Status     int           // 0 when there was no answer
	RetryAfter time.Duration // from the last 429's Retry-After
	Err        error         // the network error, when there was no answer
	Tries      int           // requests sent; a write that may have committed is sent once
}

func (e *TransientError) Error() string {
	tries := "after one try (a write that may have committed is never repeated)"
	if e.Tries > 1 {
		tries = fmt.Sprintf("after %d tries", e.Tries)
	}
	switch {
	case e.Status == http.StatusTooManyRequests:
		return fmt.Sprintf("Cloudflare rate limit (HTTP 429) still in force %s (Retry-After %s): wait and re-run", tries, e.RetryAfter)
	case e.Status != 0:
		return fmt.Sprintf("Cloudflare answered HTTP %d %s: a temporary failure; re-run later", e.Status, tries)
	}
	return fmt.Sprintf("no answer from Cloudflare %s: %v", tries, e.Err)
}

func (e *TransientError) Unwrap() error { return e.Err }

// retrying is the transport that retries what is safe to retry.
type retrying struct {
	next     http.RoundTripper
	attempts int
	maxWait  time.Duration
	counter  *calls
	// sleep waits before a retry; nil is backends.Sleep. Tests replace
	// it to see the waits.
	sleep func(context.Context, time.Duration) error
	// limiter paces every attempt; nil does not wait.
	limiter *rate.Limiter
	// say, when set, hears each wait after a 429, as a line naming
	// server and the request (name): Retry-After may ask for a minute,
	// and a run would be silent for as long. See backends.Run.Say.
	say    func(line string)
	server string
	name   func(*http.Request) string
	// within is the run's request timeout: a 429 is tried again only if
	// its Retry-After fits it; 0 reads it from the request's context.
	within time.Duration
}

// RoundTrip sends req through backends.Retry: a 429 is tried again for
// every method, after its Retry-After when it names one; a 5xx or no
// answer only for GET.
func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	// A 429 is tried again only if the wait it asks for fits the run's
	// request timeout: Cloudflare blocks an overdrawn token for five
	// minutes, and a run that waits them out would seem hung.
	within := t.within
	if within <= 0 {
		within = backends.RequestTimeoutOf(req.Context())
	}
	tooLong := func(te *TransientError) bool {
		return te.Status == http.StatusTooManyRequests && te.RetryAfter > within
	}
	again := func(err error) backends.Class {
		var te *TransientError
		if errors.As(err, &te) && !tooLong(te) && (te.Status == http.StatusTooManyRequests || req.Method == http.MethodGet) {
			return backends.ClassTransient
		}
		return ""
	}
	after := func(err error) time.Duration {
		var te *TransientError
		if errors.As(err, &te) {
			return te.RetryAfter
		}
		return 0
	}
	var resp *http.Response
	var last error // the failure of the try just made
	tries := 0
	sleep := t.sleep
	if sleep == nil {
		sleep = backends.Sleep
	}
	r := backends.Retry{Tries: t.attempts, Backoff: 500 * time.Millisecond, Max: t.maxWait,
		Classify: again, After: after, Sleep: func(ctx context.Context, d time.Duration) error {
			t.sayWait(req, last, d, tries+1)
			return sleep(ctx, d)
		}}
	err := r.Do(req.Context(), func(context.Context) error {
		tries++
		resp, last = t.once(req, tries)
		return last
	})
	if te := (*TransientError)(nil); errors.As(err, &te) && tooLong(te) {
		return nil, fmt.Errorf("%w; not tried again: the wait it asks for is longer than the request timeout of %s (%s)", err, within, backends.RequestTimeoutSetting)
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// sayWait tells t.say of the wait d after a 429, before the given try.
func (t *retrying) sayWait(req *http.Request, err error, d time.Duration, try int) {
	var te *TransientError
	if t.say == nil || !errors.As(err, &te) || te.Status != http.StatusTooManyRequests {
		return
	}
	what := req.Method + " " + req.URL.Path
	if t.name != nil {
		what = t.name(req)
	}
	line := fmt.Sprintf("%s answered HTTP 429 (rate limited) to %s: waiting %s before try %d of %d", t.server, what, d, try, t.attempts)
	switch {
	case te.RetryAfter > d:
		line += fmt.Sprintf(" (its Retry-After of %s is capped at %s)", te.RetryAfter, d)
	case te.RetryAfter > 0:
		line += " as its Retry-After asks"
	}
	t.say(line)
}

// once sends req for the given (1-based) try. A 429, a 5xx or no answer
// is a *TransientError; a POST that failed on the server may or may not
// have committed, and RoundTrip never repeats it: the next run observes
// and converges.
func (t *retrying) once(req *http.Request, try int) (*http.Response, error) {
	if try > 1 && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		req.Body = b
	}
	if t.limiter != nil {
		if err := t.limiter.Wait(req.Context()); err != nil {
			return nil, fmt.Errorf("waiting for the request rate limit: %w", err)
		}
	}
	if t.counter != nil {
		t.counter.add(req.Method)
	}
	resp, err := t.next.RoundTrip(req)
	switch {
	case err != nil:
		if req.Context().Err() != nil {
			return nil, err
		}
		return nil, &TransientError{Err: err, Tries: try}
	case resp.StatusCode == http.StatusTooManyRequests:
		drain(resp)
		return nil, &TransientError{Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After")), Tries: try}
	case resp.StatusCode >= 500:
		drain(resp)
		return nil, &TransientError{Status: resp.StatusCode, Tries: try}
	}
	return resp, nil
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// retryAfter reads a Retry-After header in seconds (the form Cloudflare
// sends); an HTTP date is accepted too.
func retryAfter(h string) time.Duration {
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
