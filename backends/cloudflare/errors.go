package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"syscall"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// describe wraps a client error with what site was doing and what the
// user can do about it, keeping the cause for Classify: what was done,
// what went wrong, then what to do, so the advice ends the line. need
// is the permission the request needs of the token (needList,
// needDNSEdit), said when Cloudflare refuses the token.
func describe(doing, need string, err error) error {
	if errors.As(err, new(*backends.AnswerTooLargeError)) {
		return fmt.Errorf("%s: %w", doing, err) // it says what to do itself
	}
	// The client's wrapping ("HTTP request failed: Get URL: ...") adds
	// nothing to what Cloudflare answered.
	var ue *UnsuccessfulError
	if errors.As(err, &ue) {
		err = ue
	} else {
		err = quoted{err}
	}
	var hint string
	switch Classify(err) {
	case backends.ClassAuth:
		return &tokenError{doing: doing, need: need, err: err}
	case backends.ClassTransient:
		hint = "a temporary failure: re-run later"
	case backends.ClassConflict:
		hint = "the zone changed since it was observed"
		if notRouted(err) {
			hint = "Cloudflare has no such path: the zone was deleted since it was observed, or the API URL or zone id is wrong"
		}
	default:
		hint = "Cloudflare refused the request"
	}
	if errors.Is(err, context.Canceled) {
		hint = "cancelled"
	}
	return fmt.Errorf("%s: %w; %s", doing, err, hint)
}

// quoted is a client error shown as visible.Short shows server text:
// cloudflare-go's *cf.Error quotes Cloudflare's messages as they are,
// and a message holding "\n::error::" would start a workflow command
// in a pull-request check's log (UnsuccessfulError escapes its own).
type quoted struct{ err error }

func (q quoted) Error() string { return visible.Short(q.err.Error()) }
func (q quoted) Unwrap() error { return q.err }

// needList is what the zone lookup needs of the token: it lists the
// zones the token may read.
func needList(zone string) string {
	zone = strings.TrimSuffix(zone, ".")
	return fmt.Sprintf("Zone:Read to find zone %s in the zone list (and Zone:DNS:Edit on it to write its records)", zone)
}

// needDNSEdit is what every request on a zone's DNS needs of the token:
// site reads and writes the records with one token.
func needDNSEdit(zone string) string {
	zone = strings.TrimSuffix(zone, ".")
	return fmt.Sprintf("Zone:DNS:Edit on zone %s (and Zone:Read to find it in the zone list)", zone)
}

// tokenError is Cloudflare refusing the API token (HTTP 401 or 403).
// It says what the refused request needs of the token and, once the
// driver has set from, where the token came from, so the operator
// knows which token to fix and how; never the token.
type tokenError struct {
	doing, need string
	// from is the provider's credential, set by the driver, which
	// knows the provider; nil until then.
	from *model.Credential
	err  error
}

func (e *tokenError) Error() string {
	from, put := "", "give site a token that has it"
	switch c := e.from; {
	case c != nil && c.Env != "":
		from, put = " from "+c.Source(), "export "+c.Env+" holding a token that has it"
	case c != nil && c.Vault != nil:
		from, put = " from "+c.Source(), "write a token that has it to "+c.Source()
	}
	return fmt.Sprintf("%s: %v; Cloudflare refused the API token%s: it needs %s, or it is no longer current (expired, revoked or rolled): "+
		"grant that to the token (Cloudflare dashboard, My Profile > API Tokens) or %s", e.doing, e.err, from, e.need, put)
}

func (e *tokenError) Unwrap() error { return e.err }

// tokenFrom names in err, when it is Cloudflare refusing the token,
// where the token came from.
func tokenFrom(err error, c model.Credential) error {
	var te *tokenError
	if errors.As(err, &te) {
		te.from = &c
	}
	return err
}

// alreadyExists are the codes that mean the observation was stale
// (Cloudflare publishes no table of its codes and has reworded the
// messages: the set of codes, not the message, is the contract). 81044
// (record does not exist) means the same for a patch or delete.
var alreadyExists = map[int]bool{81053: true, 81054: true, 81057: true, 81058: true}

// notRouted reports whether Cloudflare answered that it has no such
// path: 7003 ("Could not route to ..., perhaps your object identifier is
// invalid?") or 7000 ("No route for that URI"). The code, not the
// message, is what site reads.
func notRouted(err error) bool {
	var ce *cf.Error
	if !errors.As(err, &ce) {
		return false
	}
	return slices.ContainsFunc(ce.ErrorCodes, func(c int) bool { return c == 7003 || c == 7000 })
}

// routeError is a path Cloudflare does not know on a run's first
// request, the zone lookup: a wrong API URL, which no re-observation or
// retry mends.
type routeError struct{ err error }

func (e *routeError) Error() string { return e.err.Error() }
func (e *routeError) Unwrap() error { return e.err }

// Classify sorts an error from the Cloudflare client.
func Classify(err error) backends.Class {
	if errors.As(err, new(*routeError)) {
		return backends.ClassInvalid
	}
	var te *TransientError
	if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) {
		return backends.ClassTransient
	}
	var ae *cf.AuthenticationError
	var ze *cf.AuthorizationError
	if errors.As(err, &ae) || errors.As(err, &ze) {
		return backends.ClassAuth
	}
	var ce *cf.Error
	if errors.As(err, &ce) {
		for _, c := range ce.ErrorCodes {
			switch {
			case alreadyExists[c] || c == 81044:
				return backends.ClassConflict
			case c == 10000 || c == 9109 || c == 9106 || c == 6003 || c == 1000:
				return backends.ClassAuth
			}
		}
		if ce.StatusCode == http.StatusNotFound {
			return backends.ClassConflict
		}
		if ce.StatusCode >= 500 || ce.StatusCode == http.StatusTooManyRequests {
			return backends.ClassTransient
		}
		return backends.ClassInvalid
	}
	// The connection broke while the answer's body was read (cut short
	// or reset): the client returns that untyped, after the transport,
	// which retries what breaks before the head, had handed it over. It
	// is the line's fault, not Cloudflare refusing the request.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return backends.ClassTransient
	}
	// Anything else (an undecodable answer, a cancelled context) is not
	// worth an automatic retry.
	return backends.ClassInvalid
}
