package vault

import (
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/visible"
)

// httpClient builds the HTTP client of one read: backends/endpoint's
// transport and redirect rules, plus the CA and client certificate the
// operator names in the usual Vault variables (read through
// Run.Getenv). VAULT_SKIP_VERIFY is refused rather than ignored, so an
// operator who set it learns that it does nothing here.
func (r *reader) httpClient() (*http.Client, error) {
	if v := strings.TrimSpace(r.run.Getenv("VAULT_SKIP_VERIFY")); v != "" {
		if off, err := strconv.ParseBool(v); err != nil || off {
			return nil, hint.Errorf(hint.Hint{Kind: hint.TrustCA, Setting: "VAULT_SKIP_VERIFY"},
				"VAULT_SKIP_VERIFY is set (%q), and site never turns certificate verification off", v)
		}
	}
	hc := endpoint.Client(endpoint.Transport())
	cfg := &api.Config{HttpClient: hc}
	tc := &api.TLSConfig{
		CACert:        r.run.Getenv(api.EnvVaultCACert),
		CACertBytes:   []byte(r.run.Getenv(api.EnvVaultCACertBytes)),
		CAPath:        r.run.Getenv(api.EnvVaultCAPath),
		ClientCert:    r.run.Getenv(api.EnvVaultClientCert),
		ClientKey:     r.run.Getenv(api.EnvVaultClientKey),
		TLSServerName: r.run.Getenv(api.EnvVaultTLSServerName),
	}
	// ConfigureTLS sets the CAs on hc's transport; cfg is only its vehicle.
	if err := cfg.ConfigureTLS(tc); err != nil {
		return nil, fmt.Errorf("the TLS settings for vault %s (VAULT_CACERT, VAULT_CACERT_BYTES, VAULT_CAPATH, VAULT_CLIENT_CERT, VAULT_CLIENT_KEY): %w: fix the file they name",
			r.sec.Store.Name, err)
	}
	// After ConfigureTLS, which needs the *http.Transport itself.
	hc.Transport = backends.CapAnswers(notVaultCheck{next: hc.Transport}, maxAnswer, "vault "+r.sec.Store.Name,
		"no answer of a Vault site reads is this large: check the vault's addrs in site.cue, and any proxy before them")
	return hc, nil
}

// notVaultCheck refuses a 404 that is not Vault's: Vault answers every
// API error, "no such secret" included, as JSON, so a 404 page from a
// web server or a captive portal at the address is not a Vault, and must
// not read as "secret does not exist" (which would end the walk through
// the store's addresses).
type notVaultCheck struct{ next http.RoundTripper }

func (c notVaultCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr == nil && mt == "application/json" {
		return resp, nil
	}
	resp.Body.Close()
	return nil, &notVaultError{contentType: ct}
}

// notVaultError is an address that answered, but not as a Vault does.
type notVaultError struct{ contentType string }

func (e *notVaultError) Error() string {
	if e.contentType == "" {
		return "not a Vault (HTTP 404 without Vault's JSON body)"
	}
	return fmt.Sprintf("not a Vault (HTTP 404 with %s, not Vault's JSON)", visible.Short(e.contentType))
}

// maxAnswer bounds what site reads of one answer. A store's address
// may be a name a tenant's records point (README, Trust model), and an
// answer that does not end would otherwise be read into memory until
// the 5 s timeout: measured, 260 MiB. Reading past it fails with
// backends.AnswerTooLargeError, and the walk moves on to the next
// address. The key site wants is a token, but KV v2 answers with every
// key of the secret at its path, and escapes '<', '>' and '&' six bytes
// each: a secret Vault took in one request (its max_request_size, 32
// MiB by default) is what a real answer may hold, so the bound is that
// (a template of 250 KiB of HTML answers 760 KiB; 1 MiB cut such a
// secret, TestPlanReadsAKeyBesideALargeOne).
const maxAnswer = 32 << 20

// tlsFailure recognises a failed TLS handshake: a certificate that does
// not verify, a server that does not speak TLS, an alert. Such a failure
// is final, never a reason to try the next address: the next one may be
// plain http, and an interception looks exactly like this. It records
// the attempt and returns the error to report, or nil for other errors.
func tlsFailure(att *attempt, err error) error {
	reason := tlsReason(err)
	if reason == "" {
		return nil
	}
	att.answered, att.reason = true, "TLS failure: "+reason
	return hint.Errorf(hint.Hint{Kind: hint.TrustCA}, "TLS failure at %s: %s; site does not try the other addresses after a TLS failure", att.addr, reason)
}

// tlsReason is what went wrong in the handshake, "" if err is not a
// TLS failure. crypto/tls wraps every certificate problem (unknown
// authority, wrong host name, expired) in a CertificateVerificationError,
// and reports an alert from the server as a net.OpError "remote error";
// net/http turns a plain HTTP answer into ErrSchemeMismatch.
func tlsReason(err error) string {
	var (
		verify *tls.CertificateVerificationError
		notTLS tls.RecordHeaderError
		op     *net.OpError
	)
	switch {
	case errors.As(err, &verify):
		return verify.Err.Error()
	case errors.Is(err, http.ErrSchemeMismatch):
		return "the server does not answer TLS (it answered plain HTTP)"
	case errors.As(err, &notTLS):
		return "the server does not answer TLS (" + notTLS.Msg + ")"
	case errors.As(err, &op) && op.Op == "remote error":
		return "the server ended the handshake: " + op.Err.Error()
	}
	return ""
}

// redirected is true for a redirect the client refused to follow
// (backends/endpoint): the address answered, but to send the token
// elsewhere, so the next address is tried.
func redirected(err error) bool {
	var re *endpoint.RedirectError
	return errors.As(err, &re)
}
