package pdnstest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// This file is the counting proxy in front of the server's API: it
// counts each zone's requests by method and can make the API fail.

// Counts are the API requests made for one zone, by method.
type Counts struct {
	GET, POST, PATCH, PUT, DELETE int
	// PatchBytes is the size of every PATCH body, in order.
	PatchBytes []int
}

// countingWriter adds the bytes of an answer's body to its zone's
// AnswerBytes.
type countingWriter struct {
	http.ResponseWriter
	s    *Server
	zone string
}

func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.s.mu.Lock()
	w.s.answered[w.zone] += n
	w.s.mu.Unlock()
	return n, err
}

// Flush keeps the proxy's streaming of answers (httputil flushes).
func (w countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Writes is the number of requests that could change the zone.
func (c Counts) Writes() int { return c.POST + c.PATCH + c.PUT + c.DELETE }

func (s *Server) startProxy() {
	target, _ := url.Parse(s.DirectURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	s.proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zone := zoneOf(r.URL.Path)
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body.Close()
		}
		s.mu.Lock()
		c := s.counts[zone]
		if c == nil {
			c = &Counts{}
			s.counts[zone] = c
		}
		switch r.Method {
		case "GET":
			c.GET++
		case "POST":
			c.POST++
		case "PATCH":
			c.PATCH++
			c.PatchBytes = append(c.PatchBytes, len(body))
		case "PUT":
			c.PUT++
		case "DELETE":
			c.DELETE++
		}
		fail := s.fail
		s.mu.Unlock()
		if fail != nil {
			r.Body = io.NopCloser(bytes.NewReader(body)) // f may read it
			if status, msg, ok := fail(r); ok {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprint(w, msg)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		rp.ServeHTTP(countingWriter{w, s, zone}, r)
	}))
	s.URL = s.proxy.URL
}

// zoneOf returns the canonical zone a request is about, "" for the zone
// list and server endpoints. Requests for the zone's metadata (the
// apply lock) count apart, under ZONE + MetadataSuffix, so a count of a
// zone's requests is of its records alone.
func zoneOf(p string) string {
	const marker = "/zones/"
	i := strings.Index(p, marker)
	if i < 0 {
		return ""
	}
	z, rest := p[i+len(marker):], ""
	if j := strings.IndexByte(z, '/'); j >= 0 {
		z, rest = z[:j], z[j:]
	}
	z = strings.ToLower(z)
	if !strings.HasSuffix(z, ".") {
		z += "."
	}
	if strings.HasPrefix(rest, "/metadata") {
		z += MetadataSuffix
	}
	return z
}

// MetadataSuffix after a zone's name keys the counts of its metadata
// requests (Requests).
const MetadataSuffix = "/metadata"

// Requests returns a copy of the requests counted for zone ("" for the
// zone list).
func (s *Server) Requests(zone string) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts[zone]
	if c == nil {
		return Counts{}
	}
	cp := *c
	cp.PatchBytes = append([]int(nil), c.PatchBytes...)
	return cp
}

// AnswerBytes is the size of the bodies of every answer to requests
// for zone (keyed as Requests), summed: what its readers downloaded.
func (s *Server) AnswerBytes(zone string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered[zone]
}

// ResetRequests forgets the counts for zone.
func (s *Server) ResetRequests(zone string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.counts, zone)
	delete(s.answered, zone)
}

// FailWhen makes the proxy answer requests for which f returns ok with
// status and body instead of forwarding them, until the test ends. Only
// one rule is active at a time.
func (s *Server) FailWhen(t testing.TB, f func(*http.Request) (status int, body string, ok bool)) {
	s.mu.Lock()
	s.fail = f
	s.mu.Unlock()
	t.Cleanup(func() {
		s.mu.Lock()
		s.fail = nil
		s.mu.Unlock()
	})
}
