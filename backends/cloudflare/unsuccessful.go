package cloudflare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/compiler/visible"
)

// UnsuccessfulError is an answer of HTTP 2xx whose envelope says
// "success": false. Cloudflare's envelope (API schema
// api-response-common-failure: "success": false, at least one error,
// result null) says the call failed whatever the status, but
// cloudflare-go v0 returns no error for any 2xx: Raw leaves Success to
// the caller, and ListZonesContext and ListDNSRecords drop it, so a
// failed listing reads as no zones or an empty zone.
//
// It unwraps to the *cf.Error a 4xx with the same body would give, so
// Classify reads its codes alike (10000: the token; 81058: a stale
// observation). Its text quotes Cloudflare's messages as visible.Short
// shows server text: escaped, and shortened when long.
type UnsuccessfulError struct {
	Status int
	Err    *cf.Error
}

func (e *UnsuccessfulError) Error() string {
	var said []string
	for _, ri := range e.Err.Errors {
		said = append(said, fmt.Sprintf("%s (%d)", visible.Short(ri.Message), ri.Code))
	}
	if len(said) == 0 {
		said = []string{"it gives no error"}
	}
	return fmt.Sprintf(`Cloudflare answered HTTP %d with "success": false: %s`, e.Status, strings.Join(said, ", "))
}

func (e *UnsuccessfulError) Unwrap() error { return e.Err }

// unsuccessful is the error of an answer of status whose envelope
// says "success": false, or nil when it says true.
func unsuccessful(status int, res cf.Response) error {
	if res.Success {
		return nil
	}
	e := &cf.Error{Type: cf.ErrorTypeRequest, StatusCode: status, Errors: res.Errors, Messages: res.Messages}
	for _, ri := range res.Errors {
		e.ErrorCodes = append(e.ErrorCodes, ri.Code)
		e.ErrorMessages = append(e.ErrorMessages, ri.Message)
	}
	return &UnsuccessfulError{Status: status, Err: e}
}

// checkedReads is the transport that fails a read (GET) answered 2xx
// with "success": false, so that no read of the client's, whichever
// call makes it, takes a failure for empty data. It sits outside the
// retrying transport: a refusal is not worth a retry. Writes are left
// to their callers, which know whether a refusal changed nothing
// (delivery.unsuccessful).
type checkedReads struct{ next http.RoundTripper }

func (t checkedReads) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	// The body is read here, in full, to find success, which Cloudflare
	// writes after the result; it is bounded by backends.CapAnswers.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := envelopeUnsuccessful(resp.StatusCode, body); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// envelopeUnsuccessful is unsuccessful for an answer's body. A body
// that is no envelope (not JSON, or without success) is left to the
// client, which says it could not read it.
func envelopeUnsuccessful(status int, body []byte) error {
	var env struct {
		Success  *bool             `json:"success"`
		Errors   []cf.ResponseInfo `json:"errors"`
		Messages []cf.ResponseInfo `json:"messages"`
	}
	if json.Unmarshal(body, &env) != nil || env.Success == nil {
		return nil
	}
	return unsuccessful(status, cf.Response{Success: *env.Success, Errors: env.Errors, Messages: env.Messages})
}
