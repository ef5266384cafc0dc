package powerdns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/visible"
)

// APIError is a classified PowerDNS API failure.
type APIError struct {
	Class  backends.Class
	Status int // HTTP status; 0 when no answer came
	// Messages are every message the server gave: the one "error" of
	// PowerDNS 4.x, or each entry of the "errors" array PowerDNS 5.1+
	// adds for several faults ("Multiple errors found in RRset").
	Messages []string
	Err      error // the underlying cause
}

// Error quotes the server's messages as visible.Short shows them: what
// answers at the url may be a proxy whose error page is HTML over many
// lines, of any size, and the error is printed on the terminal, in a
// workflow log and in the plan.
func (e *APIError) Error() string {
	if na := (*backends.NoAnswerError)(nil); errors.As(e.Err, &na) {
		// It names the server, the request and what to do; the URL
		// again and "retried" would only blur it.
		return na.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s error", e.Class)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if len(e.Messages) > 0 {
		sep := ": "
		for _, m := range e.Messages {
			b.WriteString(sep + visible.Short(m))
			sep = "; "
		}
	} else if e.Err != nil {
		b.WriteString(": " + visible.Short(e.Err.Error()))
	}
	b.WriteString(": " + advice(e.Class))
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Err }

func advice(c backends.Class) string {
	switch c {
	case backends.ClassConflict:
		return "the zone's live data refuses this change; run site diff to re-observe, and check for another writer of these names"
	case backends.ClassInvalid:
		return "the server refused the request as invalid; if it names a record, fix that record in the spec, else check the provider's url and server id"
	case backends.ClassAuth:
		return "the API key was refused; check the credential the zone's provider names and the server's api-key"
	default:
		return "the server was unreachable or overloaded; retried, then gave up; re-run when it answers"
	}
}

// errorBody is both shapes of a PowerDNS error body.
type errorBody struct {
	Error  string   `json:"error"`
	Errors []string `json:"errors"`
}

// parseErrorBody reads the messages of a PowerDNS error response: JSON
// with "error" and, since 5.1, an optional "errors" array, or plain text.
func parseErrorBody(body []byte) []string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && (eb.Error != "" || len(eb.Errors) > 0) {
		if len(eb.Errors) > 0 {
			return eb.Errors
		}
		return []string{eb.Error}
	}
	return []string{string(body)}
}

// classify turns a status and the server's messages into a class.
func classify(status int, msgs []string) backends.Class {
	switch {
	case status == 0 || status == http.StatusTooManyRequests || status >= 500:
		return backends.ClassTransient
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return backends.ClassAuth
	case status == http.StatusConflict || status == http.StatusNotFound:
		return backends.ClassConflict
	}
	for _, m := range msgs {
		if strings.Contains(m, "Conflicts with") {
			return backends.ClassConflict
		}
	}
	return backends.ClassInvalid
}

// captureKey carries a *captured through a request's context so the
// transport can keep the raw error body the client library drops (it
// reads only "error", never PowerDNS 5.1's "errors").
type captureKey struct{}

type captured struct {
	status int
	body   []byte
}

// countingTransport counts requests and keeps the raw body of error
// responses for the request's captured, if any.
type countingTransport struct {
	base   http.RoundTripper
	n      atomic.Int64
	writes atomic.Int64 // those of n that are not GET or HEAD
}

// add counts o's requests as t's.
func (t *countingTransport) add(o *countingTransport) {
	t.n.Add(o.n.Load())
	t.writes.Add(o.writes.Load())
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		t.writes.Add(1)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 300 {
		return resp, err
	}
	if c, ok := r.Context().Value(captureKey{}).(*captured); ok {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		c.status, c.body = resp.StatusCode, body
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

// call runs one API call, capturing and classifying its failure.
func call(ctx context.Context, f func(context.Context) error) error {
	c := &captured{}
	err := f(context.WithValue(ctx, captureKey{}, c))
	if err == nil {
		return nil
	}
	var pe *pdns.Error
	if errors.As(err, &pe) {
		msgs := parseErrorBody(c.body)
		if pe.StatusCode == http.StatusUnauthorized || len(msgs) == 0 {
			// Never echo what a 401 page says: it is the server's text,
			// but keep the message short and free of request details.
			msgs = []string{pe.Message}
		}
		return &APIError{Class: classify(pe.StatusCode, msgs), Status: pe.StatusCode, Messages: msgs, Err: err}
	}
	var na *backends.NoAnswerError
	if errors.As(err, &na) && na.Earlier {
		// Not sent, and never retried (no class): the server was
		// silent earlier in the run.
		return &APIError{Err: err}
	}
	if errors.As(err, new(*backends.AnswerTooLargeError)) {
		// Said whole, and never retried: the same proxy or wrong url
		// answers the same way again, and each try reads to the bound.
		return err
	}
	var re *endpoint.RedirectError
	if errors.As(err, &re) {
		// The server answered, and will send the same redirect again.
		return &APIError{Class: backends.ClassInvalid, Err: err}
	}
	return &APIError{Class: backends.ClassTransient, Err: err}
}

// retry runs f until it succeeds, fails for a reason other than a
// transient one, or has been tried Attempts times (backends.Retry).
func (d *Driver) retry(ctx context.Context, f func(context.Context) error) error {
	return d.retryAs(ctx, classOf, f)
}

// retryUnapplied is retry for a write that is no "ensure" (adding a
// key adds another key): a try that may have been applied
// (mayHaveApplied) is never sent again.
func (d *Driver) retryUnapplied(ctx context.Context, f func(context.Context) error) error {
	return d.retryAs(ctx, func(err error) backends.Class {
		if mayHaveApplied(err) {
			return ""
		}
		return classOf(err)
	}, f)
}

// retryAs is retry with the tries that classify finds transient
// repeated, all of them within the run's request timeout
// (backends.RequestTimeoutOf), and none after an interrupt of the run
// ctx carries (backends.WithRun).
func (d *Driver) retryAs(ctx context.Context, classify func(error) backends.Class, f func(context.Context) error) error {
	tries := 0
	r := backends.Retry{Tries: d.Attempts, Backoff: d.Backoff, Classify: classify, Within: d.requestTimeout(ctx)}
	err := r.Do(ctx, func(tctx context.Context) error {
		tries++
		// Each try has its own deadline, released as soon as the call
		// returns: an http.Client Timeout would instead keep every
		// request (and its body, 2 MB for a big PATCH) alive until the
		// timer fires, because the client library never closes the empty
		// body of a 204.
		actx, cancel := context.WithTimeout(tctx, d.timeout())
		defer cancel()
		err := call(actx, f)
		if ctx.Err() != nil {
			// The caller's context ended (an interrupted observation);
			// the request timeout ending tctx is the call's error.
			return ctx.Err()
		}
		return err
	})
	if tries > 1 && classOf(err) == backends.ClassTransient {
		return fmt.Errorf("after %d tries: %w", tries, err)
	}
	return err
}

// requestTimeout bounds one request, its tries included.
func (d *Driver) requestTimeout(ctx context.Context) time.Duration {
	if d.RequestTimeout > 0 {
		return d.RequestTimeout
	}
	return backends.RequestTimeoutOf(ctx)
}

// classOf is the class of an *APIError in err's chain, "" for any other
// error (a cancelled context), which is never retried.
func classOf(err error) backends.Class {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Class
	}
	return ""
}
