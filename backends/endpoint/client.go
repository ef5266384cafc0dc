package endpoint

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is net/http's own limit, kept.
const maxRedirects = 10

// Transport returns a new transport like http.DefaultTransport (proxy
// from the environment, pooled connections, HTTP/2) whose TLS
// configuration verifies certificates against the system roots. It has
// a TLSClientConfig of its own, so a backend can add a CA to it without
// touching any other transport.
func Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	return t
}

// Client returns an HTTP client over rt (Transport() when nil) that
// follows redirects only as CheckRedirect allows.
func Client(rt http.RoundTripper) *http.Client {
	if rt == nil {
		rt = Transport()
	}
	return &http.Client{Transport: rt, CheckRedirect: CheckRedirect}
}

// RedirectError is a redirect site refused to follow.
type RedirectError struct {
	From, To string // scheme://host:port of each, nothing else
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused the redirect from %s to %s: site follows redirects only to the same scheme and host:port, "+
		"so credentials never leave the configured endpoint; configure the address that answers without redirecting", e.From, e.To)
}

// CheckRedirect is an http.Client.CheckRedirect that allows a redirect
// only to the scheme and host:port of the first request, and never to a
// URL with a user name or password (net/http would turn those into an
// Authorization header).
func CheckRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || origin(req.URL) != origin(first) || req.URL.User != nil {
		return &RedirectError{From: origin(first), To: origin(req.URL)}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects within %s", maxRedirects, origin(first))
	}
	return nil
}

// origin is scheme://host:port with the scheme's default port filled in
// and the host lower-cased, so equal origins compare equal as strings.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
