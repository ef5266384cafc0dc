package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestRequestTimeoutBoundsARunAgainstASilentServer: diff and apply
// against a PowerDNS that accepts connections and never answers give up
// after --request-timeout, exit 1, and say which server did not answer
// and which setting bounds the wait; no request is tried a second time,
// and once one went unanswered the server is asked nothing more (issue
// 27: diff took 181 s, apply 361 s, three tries of 60 s per request).
func TestRequestTimeoutBoundsARunAgainstASilentServer(t *testing.T) {
	srv := pdnsEnv(t)
	silent := pdnstest.StartSilent(t)
	url, tries := silent.URL, silent.Tries
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
