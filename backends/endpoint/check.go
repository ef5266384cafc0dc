// Package endpoint holds the transport rules every HTTP backend obeys,
// whatever a spec says: which URLs site may send a credential to, and
// the HTTP client that carries it there.
//
// The rules:
//
//   - https:// always verifies the server's certificate. Nothing here
//     turns verification off; a custom CA is added by the backend that
//     knows where its operator keeps it (the Vault backend reads
//     VAULT_CACERT and VAULT_CAPATH).
//   - http:// is allowed only to a loopback address (127.0.0.0/8, ::1,
//     localhost), or where the operator marked the endpoint plaintext
//     (site.cue: plaintext: true): anything else would put an API key
//     or token on the network in clear.
//   - A URL never carries a user name or password. Such a URL is
//     refused, and the refusal does not repeat them.
//   - A redirect is followed only to the same scheme and host:port. The
//     API key headers (X-API-Key, X-Vault-Token) are not among the
//     headers net/http drops on a redirect to another host, and a 307
//     re-sends the body: following one to another host would hand both
//     to whoever the first server names.
package endpoint

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// ErrUserinfo is returned for a URL with a user name or password.
var ErrUserinfo = errors.New("a URL must not carry a user name or password")

// ErrPlaintext is returned for http:// to a non-loopback host that the
// operator did not mark plaintext.
var ErrPlaintext = errors.New("plain http:// to a non-loopback host sends credentials in clear")

// Check parses raw and checks it against the transport rules. plaintext
// is the operator's explicit permission for http:// to a non-loopback
// host. Errors name the URL without any user name or password.
func Check(raw string, plaintext bool) (*url.URL, error) {
	shown := redact(raw)
	u, err := url.Parse(raw)
	// url.Parse's own error quotes the whole input, password included,
	// so it is not wrapped.
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s is not an http:// or https:// URL with a host", shown)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s: %w: remove it, credentials come from credential references (env or vault)", shown, ErrUserinfo)
	}
	if u.Scheme == "http" && !plaintext && !Loopback(u.Hostname()) {
		return nil, fmt.Errorf("%s: %w: use https://, or mark this endpoint plaintext: true in site.cue if the network path is trusted", shown, ErrPlaintext)
	}
	return u, nil
}

// Loopback reports whether host (a URL's host name, without port) is
// localhost or a loopback address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// redact drops everything up to the last "@" of raw's authority, so a
// user name or password is never shown, even in a URL that does not
// parse.
func redact(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + len("://")
	}
	end := len(raw)
	if i := strings.IndexAny(raw[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndex(raw[start:end], "@"); at >= 0 {
		return raw[:start] + raw[start+at+1:]
	}
	return raw
}
