package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends"
)

// describe wraps a client error with what site was doing and what the
// user can do about it, keeping the cause for Classify: what was done,
// what went wrong, then what to do, so the advice ends the line.
func describe(doing string, err error) error {
	var hint string
	switch Classify(err) {
	case backends.ClassAuth:
		hint = "the API token was refused: check that it is current and has Zone:Read and DNS:Edit on this zone"
	case backends.ClassTransient:
		hint = "a temporary failure: re-run later"
	case backends.ClassConflict:
		hint = "the zone changed since it was observed"
	default:
		hint = "Cloudflare refused the request"
	}
	if errors.Is(err, context.Canceled) {
		hint = "cancelled"
	}
	return fmt.Errorf("%s: %w; %s", doing, err, hint)
}

// alreadyExists are the codes that mean the observation was stale
// (Cloudflare publishes no table of its codes and has reworded the
// messages: the set of codes, not the message, is the contract). 81044
// (record does not exist) means the same for a patch or delete.
var alreadyExists = map[int]bool{81053: true, 81054: true, 81057: true, 81058: true}

// Classify sorts an error from the Cloudflare client.
func Classify(err error) backends.Class {
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
