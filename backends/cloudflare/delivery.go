package cloudflare

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"

	cf "github.com/cloudflare/cloudflare-go"
)

// A write whose request fails may or may not have been acted on, and
// only what became of the request tells which: a request whose body
// never reached the connection in full cannot have been run (Cloudflare
// runs a batch only once it has read the whole JSON body), nor one
// answered 4xx (Cloudflare refused it, and a batch is one transaction);
// any other failure after the body was sent (no answer, a 5xx from a
// proxy whose origin may have acted, a 200 whose body was cut or is no
// JSON) leaves it unknown. The client's errors do not keep this apart
// (a cut body and a refusal may both be untyped), so the transport
// records it for the write that asks (withDelivery).

// delivery is what became of the last try of one request.
type delivery struct {
	mu      sync.Mutex
	written bool // its body was written to the connection in full
	status  int  // the status of its answer; 0 when none came
	// refused is an answer of 2xx whose envelope says "success": false
	// (see unsuccessful): a refusal, whatever the status.
	refused bool
}

type deliveryKey struct{}

// withDelivery returns ctx carrying a delivery that the requests made
// with it fill in.
func withDelivery(ctx context.Context) (context.Context, *delivery) {
	d := &delivery{}
	return context.WithValue(ctx, deliveryKey{}, d), d
}

// fate is what the last try came to: the status of its answer (0 when
// none came), and whether it may have reached Cloudflare in a state it
// could act on (sent in full, and not refused with a 4xx).
func (d *delivery) fate() (status int, reached bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refused || d.status >= 400 && d.status < 500 {
		return d.status, false
	}
	return d.status, d.written || d.status != 0
}

// try forgets an earlier try's fate (a 429 tried again): what the
// caller hears is the last try's.
func (d *delivery) try() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.written, d.status, d.refused = false, 0, false
}

func (d *delivery) wrote(info httptrace.WroteRequestInfo) {
	if info.Err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.written = true
}

func (d *delivery) answered(status int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.status = status
}

// recordDelivery is next, recording into the delivery of each request's
// context, if it carries one, what became of each try. It sits below
// the retrying transport, so that it sees every try.
type recordDelivery struct{ next http.RoundTripper }

func (t recordDelivery) RoundTrip(req *http.Request) (*http.Response, error) {
	d, ok := req.Context().Value(deliveryKey{}).(*delivery)
	if !ok {
		return t.next.RoundTrip(req)
	}
	d.try()
	trace := &httptrace.ClientTrace{WroteRequest: d.wrote}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		d.answered(resp.StatusCode)
	}
	return resp, err
}

// mayHaveApplied is the error of a write (doing) that failed with err
// after it may have reached Cloudflare (fate): describe's hints, a
// refusal or a re-run, would not be true of it.
func mayHaveApplied(doing string, err error) error {
	return fmt.Errorf("%s: %w; the request was sent in full, but no answer came back that says whether Cloudflare applied it, so it may have: run site diff to see what the zone holds", doing, err)
}

// unsuccessful is the error of an answer whose status the client took
// for success (2xx) but whose envelope says "success": false (an
// *UnsuccessfulError), or nil when it says true. A batch that fails is
// applied not at all (cloudflare-docs
// dns/manage-dns-records/how-to/batch-record-changes.mdx: "If any of
// the individual action fails, no changes are applied and the API
// returns the first error it encountered"). So it is a refusal, and d
// records it as one; Classify reads its codes as a 4xx's (81058: the
// zone changed since it was observed).
func (d *delivery) unsuccessful(res cf.RawResponse) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := unsuccessful(d.status, res.Response)
	d.refused = err != nil
	return err
}
