package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// The fault suite's fixture: one tenant with several small PowerDNS
// zones, each also holding rrsets another writer put there, reached
// through Toxiproxy (connection faults) and the pdnstest proxy (whole
// wrong answers). Every run writes new values, so every run has work
// to be interrupted in; the checks after each run are the promises
// that must hold however the run ended.

var faultSeed = flag.Int64("fault-seed", 1, "seed of the fault suite's choices (faults_test.go); a failure names the seed to rerun with")

// faultZones are the tenant's zones, canonical.
var faultZones = []string{"a.faults.example.test.", "b.faults.example.test.", "c.faults.example.test."}

// foreignRRsets are written into every zone before site sees it, by
// someone else: no owner marker, at names the tenant does not use.
func foreignRRsets(zone string) []pdnstest.RRset {
	return []pdnstest.RRset{
		{Name: zone, Type: "MX", TTL: 3600, Records: []string{"10 mx.example.org."}},
		{Name: "legacy." + zone, Type: "A", TTL: 3600, Records: []string{"192.0.2.200"}},
		{Name: "_dmarc." + zone, Type: "TXT", TTL: 3600, Records: []string{`"v=DMARC1; p=none"`}},
	}
}

// faultSite is the fixture.
type faultSite struct {
	srv  *pdnstest.Server
	fp   *faultProxy
	file string // the tenant's spec

	mu sync.Mutex
	// answer, when set, answers a request at the pdnstest proxy instead
	// of PowerDNS (see pdnstest.FailWhen).
	answer func(*http.Request) (status int, body string, ok bool)
}

func newFaultSite(t *testing.T) *faultSite {
	t.Helper()
	srv := pdnsEnv(t)
	fs := &faultSite{srv: srv, fp: newFaultProxy(t, srv.URL)}
	for _, z := range faultZones {
		srv.CreateZone(t, z, foreignRRsets(z)...)
	}
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		fs.mu.Lock()
		f := fs.answer
		fs.mu.Unlock()
		if f == nil {
			return 0, "", false
		}
		return f(r)
	})
	site := siteSrc(pdnsProvider("pdns", fs.fp.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"faults.example.test"}, providers: []string{"pdns"}})
	fs.file = filepath.Join(writeSpecs(t, site, map[string]string{}), "office1.cue")
	return fs
}

// setAnswer installs (or, with nil, removes) the pdnstest proxy's rule.
func (fs *faultSite) setAnswer(f func(*http.Request) (int, string, bool)) {
	fs.mu.Lock()
	fs.answer = f
	fs.mu.Unlock()
}

// wanted is what the spec of version v asks of zone, keyed "name type",
// records in the API's presentation form, sorted.
func wanted(zone string, v int) map[string][]string {
	return map[string][]string{
		"www." + zone + " A":       {fmt.Sprintf("192.0.2.%d", 1+v%200)},
		zone + " TXT":              {fmt.Sprintf(`"v=site-%d"`, v)},
		"api." + zone + " AAAA":    {fmt.Sprintf("2001:db8::%x", v+1)},
		"alias." + zone + " CNAME": {"www." + zone},
	}
}

// writeVersion writes the tenant's spec asking for version v.
func (fs *faultSite) writeVersion(t *testing.T, v int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("package tenants\n\ntenants: office1: {\n\tdomain: \"faults.example.test\"\n\tdns: zones: {\n")
	for _, z := range faultZones {
		fmt.Fprintf(&b, "\t\t%q: {provider: \"pdns\", ttl: 300, records: {\n", strings.TrimSuffix(z, "."))
		fmt.Fprintf(&b, "\t\t\twww: A: [\"192.0.2.%d\"]\n", 1+v%200)
		fmt.Fprintf(&b, "\t\t\t\"@\": TXT: [\"v=site-%d\"]\n", v)
		fmt.Fprintf(&b, "\t\t\tapi: AAAA: [\"2001:db8::%x\"]\n", v+1)
		fmt.Fprintf(&b, "\t\t\talias: CNAME: %q\n", "www."+z)
		b.WriteString("\t\t}}\n")
	}
	b.WriteString("\t}\n}\n")
	if err := os.WriteFile(fs.file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rrsetState is one rrset as the server holds it.
type rrsetState struct {
	records string // sorted, joined
	marked  bool   // carries site's owner marker
}

// snapshot reads every zone straight from PowerDNS (not through the
// faults), keyed "zone|name type". SOA is left out: its serial moves on
// every write, whoever writes.
func (fs *faultSite) snapshot(t *testing.T) map[string]rrsetState {
	t.Helper()
	out := map[string]rrsetState{}
	for _, z := range faultZones {
		for _, rs := range fs.srv.Get(t, z).RRsets {
			if rs.Type == "SOA" {
				continue
			}
			st := rrsetState{records: strings.Join(rs.Records, "\n")}
			for _, c := range rs.Comments {
				st.marked = st.marked || c.Account == powerdns.MarkerAccount
			}
			out[z+"|"+rs.Name+" "+rs.Type] = st
		}
	}
	return out
}

// goTrace matches what a panic or a Go stack trace prints.
var goTrace = regexp.MustCompile(`panic:|goroutine \d+|\.go:\d+|runtime\.`)

// checkRun asserts what must hold after any run, however it ended:
// before and after are snapshots around it, v the version it applied.
// A run that exited 0 must have converged; any other must have said why
// in words, not with a trace.
func (fs *faultSite) checkRun(t *testing.T, what string, before, after map[string]rrsetState, v, code int, stdout, stderr string) {
	t.Helper()
	fs.checkKept(t, what, before, after, v)
	for _, z := range faultZones {
		for k, recs := range wanted(z, v) {
			a, ok := after[z+"|"+k]
			if code == exitOK && (!ok || a.records != strings.Join(recs, "\n") || !a.marked) {
				t.Errorf("%s: apply exited 0 but %s is %+v (present %v), want %q marked", what, z+"|"+k, a, ok, recs)
			}
		}
	}
	checkExit(t, what, code, stdout, stderr)
}

// checkExit asserts that a run converged (0) or failed saying why in
// words (1, "site: ..." on stderr), or stopped at the gate for served
// data the API's answer left out (3), and printed no Go trace.
func checkExit(t *testing.T, what string, code int, stdout, stderr string) {
	t.Helper()
	if goTrace.MatchString(stdout + stderr) {
		t.Errorf("%s: site printed a Go trace:\nstdout:\n%s\nstderr:\n%s", what, stdout, stderr)
	}
	switch code {
	case exitOK:
	case exitError:
		if !strings.Contains(stderr, "site: ") {
			t.Errorf("%s: apply exited 1 without saying why:\nstdout:\n%s\nstderr:\n%s", what, stdout, stderr)
		}
	case exitGated:
		// An API answer that leaves rrsets out while the server still
		// serves them reads as data the API does not list: the creates
		// over it wait for GATE-DNS-OVERWRITE (backends/powerdns/hidden.go).
		if !strings.Contains(stdout, "which its API does not list") {
			t.Errorf("%s: apply exited 3 but not for served data the API left out:\nstdout:\n%s\nstderr:\n%s", what, stdout, stderr)
		}
	default:
		t.Errorf("%s: apply exited %d, want 0 (converged) or 1 (failed, saying why):\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
}

// checkKept asserts what must hold even after a run that was killed:
// no foreign rrset changed or appeared, no wanted rrset of version v
// that was there before is gone.
func (fs *faultSite) checkKept(t *testing.T, what string, before, after map[string]rrsetState, v int) {
	t.Helper()
	for k, b := range before {
		a, ok := after[k]
		if !b.marked && (!ok || a != b) {
			t.Errorf("%s: foreign rrset %s changed: before %+v, after %+v (present %v)", what, k, b, a, ok)
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok && !a.marked {
			t.Errorf("%s: an unmarked rrset %s appeared: %+v", what, k, a)
		}
	}
	for _, z := range faultZones {
		for k := range wanted(z, v) {
			key := z + "|" + k
			_, ok := after[key]
			if _, had := before[key]; had && !ok {
				t.Errorf("%s: wanted rrset %s was deleted", what, key)
			}
		}
	}
}

// requests is how many API requests reached PowerDNS's proxy since
// resetRequests, every zone, its metadata and the zone list.
func (fs *faultSite) requests() int {
	n := countOf(fs.srv.Requests(""))
	for _, z := range faultZones {
		n += countOf(fs.srv.Requests(z)) + countOf(fs.srv.Requests(z+pdnstest.MetadataSuffix))
	}
	return n
}

func (fs *faultSite) resetRequests() {
	fs.srv.ResetRequests("")
	for _, z := range faultZones {
		fs.srv.ResetRequests(z)
		fs.srv.ResetRequests(z + pdnstest.MetadataSuffix)
	}
}

func countOf(c pdnstest.Counts) int { return c.GET + c.Writes() }

// unlockIfHeld breaks the tenant's lock when a failed run left it (its
// release could not reach the server either), as the operator would
// after reading the message; a run that left none needs nothing.
func (fs *faultSite) unlockIfHeld(t *testing.T, what string) {
	t.Helper()
	code, stdout, stderr := siteRun(t, fs.srv, "unlock", "office1", fs.file, "--ack", "GATE-LOCK-BREAK")
	if code != exitOK {
		t.Fatalf("%s: unlock exit %d\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
}

// shortTimeouts makes the PowerDNS driver of in-process runs give up on
// a stalled request after timeout instead of a minute, and retry after
// a few milliseconds, so a stall costs the suite little.
func shortTimeouts(t *testing.T, timeout time.Duration) {
	t.Helper()
	useBackend(t, "powerdns", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["powerdns"] = &powerdns.Driver{Timeout: timeout, Backoff: 5 * time.Millisecond}
	})
}

// partialZone answers a GET of a zone with the zone as PowerDNS holds
// it, but with some of its rrsets left out (a proxy or a server that
// lost part of the answer); pick decides which.
func (fs *faultSite) partialZone(pick func(n int) int, r *http.Request) (int, string, bool) {
	zone := zoneOfPath(r.URL.Path)
	if r.Method != http.MethodGet || zone == "" {
		return 0, "", false
	}
	status, body, err := fs.srv.Do(context.Background(), "GET", "/zones/"+zone, nil)
	if err != nil || status != 200 {
		return 0, "", false
	}
	var z map[string]any
	if json.Unmarshal(body, &z) != nil {
		return 0, "", false
	}
	rrsets, _ := z["rrsets"].([]any)
	var kept []any
	for _, rs := range rrsets {
		if pick(3) != 0 {
			kept = append(kept, rs)
		}
	}
	z["rrsets"] = kept
	out, _ := json.Marshal(z)
	return 200, string(out), true
}

// zoneOfPath is the zone a request reads or writes, "" for any other
// path (the zone list, metadata).
func zoneOfPath(p string) string {
	_, rest, ok := strings.Cut(p, "/zones/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return ""
	}
	return rest
}

// lockedPick is a seeded choice safe to call from the proxy's handlers,
// which serve site's requests concurrently.
func lockedPick(seed int64) func(n int) int {
	var mu sync.Mutex
	rnd := rand.New(rand.NewSource(seed))
	return func(n int) int {
		mu.Lock()
		defer mu.Unlock()
		return rnd.Intn(n)
	}
}
