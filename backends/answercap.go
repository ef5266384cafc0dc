package backends

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// A server's answer is read into memory whole (a zone, a page of
// records, a secret), so each HTTP backend bounds the answers of its
// server far above any real one: a proxy that streams without end, or a
// url that names something else than the API, would otherwise be read
// until the request's timeout (measured for Vault: 260 MiB in 5 s).

// CapAnswers is next, whose answers fail to read with an
// *AnswerTooLargeError once more than limit bytes of one were read.
// server names whom for a person ("PowerDNS provider pdns"); check says
// why no answer is that large and what to look at. Neither may hold a
// credential.
func CapAnswers(next http.RoundTripper, limit int64, server, check string) http.RoundTripper {
	return &capTransport{next: next, limit: limit, server: server, check: check}
}

type capTransport struct {
	next          http.RoundTripper
	limit         int64
	server, check string
}

func (t *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	tooLarge := &AnswerTooLargeError{Server: t.server, Request: requestText(req), Limit: t.limit, Check: t.check}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.limit, tooLarge: tooLarge}
	return resp, nil
}

// requestText is the request's method and URL without its query: what
// was asked of whom, and nothing a proxy or a caller may have put in the
// query string.
func requestText(req *http.Request) string {
	u := url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host, Path: req.URL.Path, RawPath: req.URL.RawPath}
	return req.Method + " " + u.String()
}

// cappedBody is an answer's body that fails once more than left bytes
// were read. It reads one byte past left before it fails: a body's end
// may come by itself after its last byte (a chunked answer's does), and
// an answer of exactly the bound is whole.
type cappedBody struct {
	io.ReadCloser
	left     int64
	tooLarge error
	err      error // tooLarge, once the byte past the bound came
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) > b.left { // the byte past the bound: not handed on
		b.err = b.tooLarge
		return int(b.left), b.err
	}
	b.left -= int64(n)
	return n, err
}

// AnswerTooLargeError is an answer longer than its client's bound.
type AnswerTooLargeError struct {
	Server  string // whom, as CapAnswers was told
	Request string // method and URL, without the query
	Limit   int64  // bytes
	Check   string // what to look at
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("%s answered %s with more than %s, and site stopped reading there: %s",
		e.Server, e.Request, sizeText(e.Limit), e.Check)
}

// sizeText says n bytes in the largest binary unit that divides it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
