package main

import (
	"fmt"
	"math/rand"
	"net/http"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// The fault suite (issue 11, item 9): seeded runs of site apply against
// a real PowerDNS whose API answers through Toxiproxy and the pdnstest
// proxy, each run under one fault. After every run: no foreign rrset
// changed, no wanted rrset deleted, the run converged or exited 1 saying
// why (never a trace), its requests bounded; at the end one clean apply
// converges. Rerun a failure with -fault-seed=N.

// fault is one kind of trouble between site and PowerDNS, set up for one
// run from the run's seeded choices.
type fault struct {
	name string
	set  func(t *testing.T, fs *faultSite, pick func(n int) int)
}

var faults = []fault{
	{"none", func(*testing.T, *faultSite, func(int) int) {}},
	{"reset", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// RST on a share of connections, after a few milliseconds: some
		// before the request is read, some while it is answered.
		fs.fp.add(t, "reset_peer", "downstream", 0.5, toxiclient.Attributes{"timeout": pick(30)})
	}},
	{"stall", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// No byte comes back and the connection stays open: only the
		// driver's per-request timeout ends the wait.
		fs.fp.add(t, "timeout", "downstream", 0.2, toxiclient.Attributes{"timeout": 0})
	}},
	{"stall then close", func(t *testing.T, fs *faultSite, pick func(int) int) {
		fs.fp.add(t, "timeout", "downstream", 0.5, toxiclient.Attributes{"timeout": 20 + pick(100)})
	}},
	{"slow", func(t *testing.T, fs *faultSite, pick func(int) int) {
		fs.fp.add(t, "latency", "downstream", 1, toxiclient.Attributes{"latency": 5 + pick(15), "jitter": 5})
		fs.fp.add(t, "bandwidth", "downstream", 1, toxiclient.Attributes{"rate": 128})
	}},
	{"sliced", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// Answers in tiny pieces with pauses between them.
		fs.fp.add(t, "slicer", "downstream", 1, toxiclient.Attributes{"average_size": 16 + pick(48), "size_variation": 8, "delay": 200})
	}},
	{"truncated answer", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// The connection closes after so many bytes of answers: a body
		// cut short, or a later request's answer never sent.
		fs.fp.add(t, "limit_data", "downstream", 1, toxiclient.Attributes{"bytes": 200 + pick(4000)})
	}},
	{"truncated request", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// PowerDNS gets part of a request (a PATCH body cut short).
		fs.fp.add(t, "limit_data", "upstream", 1, toxiclient.Attributes{"bytes": 300 + pick(3000)})
	}},
	{"429", func(t *testing.T, fs *faultSite, pick func(int) int) {
		fs.setAnswer(func(*http.Request) (int, string, bool) {
			return http.StatusTooManyRequests, `{"error": "rate limited"}`, pick(3) == 0
		})
	}},
	{"5xx", func(t *testing.T, fs *faultSite, pick func(int) int) {
		codes := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
		fs.setAnswer(func(*http.Request) (int, string, bool) {
			return codes[pick(len(codes))], `{"error": "backend trouble"}`, pick(3) == 0
		})
	}},
	{"writes fail", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// Reads work, writes do not: a zone half converged must stay
		// as it was.
		fs.setAnswer(func(r *http.Request) (int, string, bool) {
			return http.StatusInternalServerError, `{"error": "Could not store"}`, r.Method == http.MethodPatch && pick(2) == 0
		})
	}},
	{"partial zone", func(t *testing.T, fs *faultSite, pick func(int) int) {
		fs.setAnswer(func(r *http.Request) (int, string, bool) { return fs.partialZone(pick, r) })
	}},
	{"cut zone body", func(t *testing.T, fs *faultSite, pick func(int) int) {
		// A 200 whose JSON ends early, Content-Length honest.
		fs.setAnswer(func(r *http.Request) (int, string, bool) {
			status, body, ok := fs.partialZone(pick, r)
			if !ok || len(body) < 2 {
				return status, body, ok
			}
			return status, body[:1+pick(len(body)-1)], true
		})
	}},
}

// faultRuns is how many seeded runs TestFaultsPowerDNSApply makes; five
// of each fault; with the 20 interrupted and 20 recovering runs of
// TestFaultsPowerDNSKilled the suite applies over 100 times.
const faultRuns = 65

func TestFaultsPowerDNSApply(t *testing.T) {
	fs := newFaultSite(t)
	shortTimeouts(t, 250*time.Millisecond)
	seed := *faultSeed
	rnd := rand.New(rand.NewSource(seed))

	// A clean first apply takes the zones over and measures the requests
	// of a run that rewrites every wanted rrset: a faulty run's retries
	// may multiply them by the driver's three tries, no more.
	v := 1
	fs.writeVersion(t, v)
	fs.resetRequests()
	before := fs.snapshot(t)
	code, stdout, stderr := siteRun(t, fs.srv, "apply", fs.file)
	fs.checkRun(t, "first apply", before, fs.snapshot(t), v, code, stdout, stderr)
	if code != exitOK {
		t.Fatalf("first apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	fs.writeVersion(t, 2)
	fs.resetRequests()
	if code, stdout, stderr := siteRun(t, fs.srv, "apply", fs.file); code != exitOK {
		t.Fatalf("second apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	bound := 3*fs.requests() + 6
	v = 2

	outcomes := map[string][2]int{} // fault -> converged, failed
	for i := 0; i < faultRuns && !t.Failed(); i++ {
		f := faults[i%len(faults)]
		v += 1 + rnd.Intn(50)
		what := fmt.Sprintf("seed %d run %d (%s, version %d)", seed, i, f.name, v)
		fs.writeVersion(t, v)
		before := fs.snapshot(t)
		fs.resetRequests()
		f.set(t, fs, lockedPick(rnd.Int63()))
		code, stdout, stderr := siteRun(t, fs.srv, "apply", fs.file)
		fs.fp.clear(t)
		fs.setAnswer(nil)
		fs.checkRun(t, what, before, fs.snapshot(t), v, code, stdout, stderr)
		if n := fs.requests(); n > bound {
			t.Errorf("%s: %d API requests, want at most %d", what, n, bound)
		}
		o := outcomes[f.name]
		if code == exitOK {
			o[0]++
		} else {
			o[1]++
			fs.unlockIfHeld(t, what)
		}
		outcomes[f.name] = o
	}
	t.Logf("seed %d: converged, failed per fault: %v", seed, outcomes)

	// Once the line is clean, one apply converges whatever the runs left.
	before = fs.snapshot(t)
	code, stdout, stderr = siteRun(t, fs.srv, "apply", fs.file)
	fs.checkRun(t, "clean apply after the faults", before, fs.snapshot(t), v, code, stdout, stderr)
	if code != exitOK {
		t.Fatalf("clean apply after the faults exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := siteRun(t, fs.srv, "diff", "--detailed-exitcode", fs.file); code != exitOK {
		t.Errorf("diff after the clean apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
