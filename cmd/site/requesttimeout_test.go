package main

import (
	"bufio"
	"maps"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// silentListener accepts connections and never answers, as a
// blackholed server does once connected; it counts the connections,
// one per try of a request, and the tries of each request by its
// first line ("GET /api/v1/... HTTP/1.1") since tries was last called.
func silentListener(t *testing.T) (url string, conns *atomic.Int32, tries func() map[string]int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = &atomic.Int32{}
	var mu sync.Mutex
	var open []net.Conn
	seen := map[string]int{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			go func() {
				line, err := bufio.NewReader(c).ReadString('\n')
				if err == nil {
					mu.Lock()
					seen[strings.TrimSpace(line)]++
					mu.Unlock()
				}
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	tries = func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := maps.Clone(seen)
		clear(seen)
		return out
	}
	return "http://" + l.Addr().String(), conns, tries
}

// TestRequestTimeoutBoundsARunAgainstASilentServer: diff and apply
// against a PowerDNS that accepts connections and never answers give up
// after --request-timeout, exit 1, and say which server did not answer
// and which setting bounds the wait; no request is tried a second time,
// and once one went unanswered the server is asked nothing more (issue
// 27: diff took 181 s, apply 361 s, three tries of 60 s per request).
func TestRequestTimeoutBoundsARunAgainstASilentServer(t *testing.T) {
	srv := pdnsEnv(t)
	url, _, tries := silentListener(t)
	const zoneA, zoneB = "a.silent.example.test", "b.silent.example.test"
	src := `package tenants

tenants: office1: {
	domain: "silent.example.test"
	dns: zones: {
		"` + zoneA + `": {provider: "pdns", records: www: A: ["192.0.2.1"]}
		"` + zoneB + `": {provider: "pdns", records: www: A: ["192.0.2.2"]}
	}
}
`
	site := siteSrc(pdnsProvider("pdns", url, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"silent.example.test"}, providers: []string{"pdns"}})
	file := writeSpec(t, site, "office1.cue", src)
	for _, cmd := range []string{"diff", "apply"} {
		t.Run(cmd, func(t *testing.T) {
			code, stdout, stderr := siteRun(t, srv, cmd, "--request-timeout", "300ms", file)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			all := stdout + stderr
			for _, want := range []string{"PowerDNS pdns (" + url + ")", "did not answer", "within 300ms", "--request-timeout"} {
				if !strings.Contains(all, want) {
					t.Errorf("output lacks %q:\n%s", want, all)
				}
			}
			// The requests sent at once (each zone's read, the lock's)
			// may all be on their way before one went unanswered;
			// none is tried again.
			for req, n := range tries() {
				if n > 1 {
					t.Errorf("%s: tried %d times, want once:\n%s", req, n, all)
				}
			}
		})
	}
}
