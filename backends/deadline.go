package backends

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/site-tools/site/compiler/hint"
)

// Every request has a deadline: a server that accepts connections and
// never answers (a blackholed address, a stopped process) would
// otherwise hold a run for the HTTP client's timeout times every retry
// (issue 27: diff 181 s, apply 361 s). Retry.Within bounds one request,
// its retries and the waits between them included; a request that
// reaches it unanswered fails with a *NoAnswerError naming the server,
// the request and the setting (site's --request-timeout), and every
// later request of the run to that server fails at once, unsent, so a
// run against a silent server gives up within about one request
// timeout however many zones it reads.

// DefaultRequestTimeout is how long one request may take, its retries
// included, unless the run says otherwise (Run.RequestTimeout).
const DefaultRequestTimeout = 30 * time.Second

// RequestTimeoutSetting names the setting in messages.
const RequestTimeoutSetting = "--request-timeout"

// NoAnswerError is a request that had no answer within its deadline.
type NoAnswerError struct {
	// Server names whom it was sent to (see Awaited.Server); "" when
	// the request failed outside a named transport.
	Server  string
	Request string
	Within  time.Duration
	// Earlier: an earlier request of the run to Server had no answer,
	// so this one was not sent (Request is the earlier one).
	Earlier bool
	Err     error
}

func (e *NoAnswerError) Error() string {
	server := e.Server
	if server == "" {
		server = "the server"
	}
	if e.Earlier {
		return fmt.Sprintf("not sent: %s did not answer %s within %s (%s) earlier in this run, so site asks it nothing more: %s",
			server, e.Request, e.Within, RequestTimeoutSetting, e.Hint().Render())
	}
	what := ""
	if e.Request != "" {
		what = " " + e.Request
	}
	return fmt.Sprintf("%s did not answer%s within %s, tries included (%s): %s",
		server, what, e.Within, RequestTimeoutSetting, e.Hint().Render())
}

// Hint is the advice a request without an answer gives: check the
// server, or raise the request timeout.
func (e *NoAnswerError) Hint() hint.Hint {
	return hint.Hint{Kind: hint.RaiseTimeout, Setting: RequestTimeoutSetting}
}

func (e *NoAnswerError) Unwrap() error { return e.Err }

// requestDeadline is the cause of the context Retry.Do gives its tries
// when Within ends it, so that the transport can tell that deadline
// from any other end.
type requestDeadline struct{ within time.Duration }

func (d *requestDeadline) Error() string {
	return fmt.Sprintf("no answer within %s (%s)", d.within, RequestTimeoutSetting)
}

// deadlineOf returns the request timeout that ended ctx, if one did.
func deadlineOf(ctx context.Context) (time.Duration, bool) {
	var d *requestDeadline
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &d) {
		return d.within, true
	}
	return 0, false
}

// RequestTimeoutOf is the request timeout of the run ctx carries
// (WithRun), else DefaultRequestTimeout.
func RequestTimeoutOf(ctx context.Context) time.Duration {
	if r := RunOf(ctx); r != nil && r.RequestTimeout > 0 {
		return r.RequestTimeout
	}
	return DefaultRequestTimeout
}

// silence is what a run knows of servers that let a request pass its
// deadline unanswered, by Awaited.Server.
func (r *Run) silentServer(server string) *NoAnswerError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.silent[server]
}

func (r *Run) markSilent(e *NoAnswerError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.silent == nil {
		r.silent = map[string]*NoAnswerError{}
	}
	if r.silent[e.Server] == nil {
		r.silent[e.Server] = e
	}
}

// roundTripWithin sends req through next unless the server was silent
// earlier in the run, and names a failure that Retry.Within caused.
func (t *awaitTransport) roundTripWithin(req *http.Request) (*http.Response, error) {
	if e := t.run.silentServer(t.server); e != nil {
		return nil, &NoAnswerError{Server: e.Server, Request: e.Request, Within: e.Within, Earlier: true}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		if within, ok := deadlineOf(req.Context()); ok {
			e := &NoAnswerError{Server: t.server, Request: t.request(req), Within: within, Err: err}
			t.run.markSilent(e)
			return nil, e
		}
	}
	return resp, err
}
