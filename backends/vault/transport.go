package vault

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends/endpoint"
)

// httpClient builds the HTTP client of one read: backends/endpoint's
// transport and redirect rules, plus the CA and client certificate the
// operator names in the usual Vault variables (read through
// Run.Getenv). VAULT_SKIP_VERIFY is refused rather than ignored, so an
// operator who set it learns that it does nothing here.
func (r *reader) httpClient() (*http.Client, error) {
	if v := strings.TrimSpace(r.run.Getenv("VAULT_SKIP_VERIFY")); v != "" {
		if off, err := strconv.ParseBool(v); err != nil || off {
			return nil, fmt.Errorf("VAULT_SKIP_VERIFY is set (%q), and site never turns certificate verification off: "+
				"unset it, and export VAULT_CACERT with the PEM file of the CA that signed the server's certificate "+
				"(or VAULT_CAPATH with a directory of them)", v)
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
	return hc, nil
}

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
	return fmt.Errorf("TLS failure at %s: %s; site does not try the other addresses after a TLS failure: "+
		"if the server's certificate comes from a private CA, export VAULT_CACERT with that CA's PEM file "+
		"(or VAULT_CAPATH with a directory of them); if it has expired or names another host, renew it on the server",
		att.addr, reason)
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
