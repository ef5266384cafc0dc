package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/visible"
)

// describe says in a few words why an attempt failed, and whether the
// server answered at all. Network errors are reduced to their cause
// ("connection refused", "no such host", "timed out after 5s").
func describe(err error, timeout time.Duration) (reason string, answered bool) {
	var re *api.ResponseError
	if errors.As(err, &re) {
		msg := errorList(re.Errors)
		if msg == "" {
			msg = http.StatusText(re.StatusCode)
		}
		if re.StatusCode == http.StatusServiceUnavailable && strings.Contains(msg, "sealed") {
			return "sealed (HTTP 503 \"Vault is sealed\"): unseal it (bao/vault operator unseal)", true
		}
		return fmt.Sprintf("HTTP %d: %s", re.StatusCode, msg), true
	}
	if errors.Is(err, api.ErrSecretNotFound) {
		return "secret not found (HTTP 404)", true
	}
	// Not a Vault: the walk goes on to the next address, as for one
	// that does not answer.
	var nv *notVaultError
	if errors.As(err, &nv) {
		return nv.Error(), false
	}
	if errors.As(err, new(*backends.AnswerTooLargeError)) {
		return fmt.Sprintf("answered with more than %d MiB, larger than any answer of a Vault site reads", maxAnswer>>20), false
	}
	var redirect *endpoint.RedirectError
	if errors.As(err, &redirect) {
		return redirect.Error(), true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "name does not resolve (" + dnsErr.Err + ")", false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", timeout), false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s", timeout), false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err.Error(), false
	}
	return err.Error(), false
}

// multiError is the text Vault makes of several errors at once
// (hashicorp/go-multierror): "2 errors occurred:\n\t* permission
// denied\n\t* invalid token\n\n". Vault 1.21 answers a 403 this way,
// even for one error.
var multiError = regexp.MustCompile(`^\d+ errors? occurred:\n`)

// errorList joins the errors of a Vault answer on one line, each
// multi-error text taken apart into its items, so a reason never
// spreads over lines. Each item is shown as visible.Short shows it: a
// store's address may be a name a tenant's records point (README,
// Trust model), so the answer is the tenant's to write, and a newline,
// an escape sequence or a megabyte in it would reach the operator's
// terminal, a workflow log and the plan as they are.
func errorList(errs []string) string {
	var out []string
	for _, e := range errs {
		if !multiError.MatchString(e) {
			out = append(out, visible.Short(strings.TrimSpace(e)))
			continue
		}
		for _, line := range strings.Split(e, "\n")[1:] {
			if item, ok := strings.CutPrefix(strings.TrimSpace(line), "* "); ok {
				out = append(out, visible.Short(item))
			}
		}
	}
	return strings.Join(out, "; ")
}

// isServerTrouble is true for answers that say this server cannot serve
// now (sealed, 5xx, rate limited, a redirect elsewhere) rather than
// anything about the secret.
func isServerTrouble(err error) bool {
	var re *api.ResponseError
	return errors.As(err, &re) && (re.StatusCode >= 500 || re.StatusCode == http.StatusTooManyRequests) || redirected(err)
}

// invalidToken is true for Vault's answer to a token it does not know:
// 403 with "invalid token" beside "permission denied". A token that is
// valid but lacks a policy gets "permission denied" alone.
func invalidToken(re *api.ResponseError) bool {
	for _, e := range re.Errors {
		if strings.Contains(e, "invalid token") {
			return true
		}
	}
	return false
}
