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

// fault is one kind of trouble between site and an API, set up for one
// run from the run's seeded choices: toxics on the connection, or (only
// in front of PowerDNS, through the pdnstest proxy) wrong answers.
type fault struct {
	name   string
	toxics func(t *testing.T, fp *faultProxy, pick func(n int) int)
	answer func(fs *faultSite, pick func(n int) int) func(*http.Request) (int, string, bool)
}

// set sets f up for one run.
func (f fault) set(t *testing.T, fs *faultSite, pick func(n int) int) {
	if f.toxics != nil {
		f.toxics(t, fs.fp, pick)
	}
	if f.answer != nil {
		fs.setAnswer(f.answer(fs, pick))
	}
}

var faults = []fault{
	{name: "none"},
	{name: "reset", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		// RST on a share of connections, after a few milliseconds: some
		// before the request is read, some while it is answered.
		fp.add(t, "reset_peer", "downstream", 0.5, toxiclient.Attributes{"timeout": pick(30)})
	}},
	{name: "stall", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		// No byte comes back and the connection stays open: only the
		// driver's per-request timeout ends the wait.
		fp.add(t, "timeout", "downstream", 0.2, toxiclient.Attributes{"timeout": 0})
	}},
	{name: "stall then close", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		fp.add(t, "timeout", "downstream", 0.5, toxiclient.Attributes{"timeout": 20 + pick(100)})
	}},
	{name: "slow", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		fp.add(t, "latency", "downstream", 1, toxiclient.Attributes{"latency": 5 + pick(15), "jitter": 5})
		fp.add(t, "bandwidth", "downstream", 1, toxiclient.Attributes{"rate": 128})
	}},
	{name: "sliced", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		// Answers in tiny pieces with pauses between them.
		fp.add(t, "slicer", "downstream", 1, toxiclient.Attributes{"average_size": 16 + pick(48), "size_variation": 8, "delay": 200})
	}},
	{name: "truncated answer", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		// The connection closes after so many bytes of answers: a body
		// cut short, or a later request's answer never sent.
		fp.add(t, "limit_data", "downstream", 1, toxiclient.Attributes{"bytes": 200 + pick(4000)})
	}},
	{name: "truncated request", toxics: func(t *testing.T, fp *faultProxy, pick func(int) int) {
		// The server gets part of a request (a write's body cut short).
		fp.add(t, "limit_data", "upstream", 1, toxiclient.Attributes{"bytes": 300 + pick(3000)})
	}},
	{name: "429", answer: func(fs *faultSite, pick func(int) int) func(*http.Request) (int, string, bool) {
		return func(*http.Request) (int, string, bool) {
			return http.StatusTooManyRequests, `{"error": "rate limited"}`, pick(3) == 0
		}
	}},
	{name: "5xx", answer: func(fs *faultSite, pick func(int) int) func(*http.Request) (int, string, bool) {
		codes := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
		return func(*http.Request) (int, string, bool) {
			return codes[pick(len(codes))], `{"error": "backend trouble"}`, pick(3) == 0
		}
	}},
	{name: "writes fail", answer: func(fs *faultSite, pick func(int) int) func(*http.Request) (int, string, bool) {
		// Reads work, writes do not: a zone half converged must stay
		// as it was.
		return func(r *http.Request) (int, string, bool) {
			return http.StatusInternalServerError, `{"error": "Could not store"}`, r.Method == http.MethodPatch && pick(2) == 0
		}
	}},
	{name: "partial zone", answer: func(fs *faultSite, pick func(int) int) func(*http.Request) (int, string, bool) {
		return func(r *http.Request) (int, string, bool) { return fs.partialZone(pick, r) }
	}},
	{name: "cut zone body", answer: func(fs *faultSite, pick func(int) int) func(*http.Request) (int, string, bool) {
		// A 200 whose JSON ends early, Content-Length honest.
		return func(r *http.Request) (int, string, bool) {
			status, body, ok := fs.partialZone(pick, r)
			if !ok || len(body) < 2 {
				return status, body, ok
			}
			return status, body[:1+pick(len(body)-1)], true
		}
	}},
}

// faultRuns is how many seeded runs TestFaultsPowerDNSApply makes, five
// of each fault. With the 20 killed and 20 recovering runs of
// TestFaultsPowerDNSKilled and the Cloudflare and Vault runs, the suite
// applies about 150 times.
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
	code, stdout, stderr := siteRun(t, fs.srv, "apply", "--yes", fs.file)
	fs.checkRun(t, "first apply", before, fs.snapshot(t), v, code, stdout, stderr)
	if code != exitOK {
		t.Fatalf("first apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	fs.writeVersion(t, 2)
	fs.resetRequests()
	if code, stdout, stderr := siteRun(t, fs.srv, "apply", "--yes", fs.file); code != exitOK {
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
		code, stdout, stderr := siteRun(t, fs.srv, "apply", "--yes", fs.file)
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
	code, stdout, stderr = siteRun(t, fs.srv, "apply", "--yes", fs.file)
	fs.checkRun(t, "clean apply after the faults", before, fs.snapshot(t), v, code, stdout, stderr)
	if code != exitOK {
		t.Fatalf("clean apply after the faults exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := siteRun(t, fs.srv, "diff", "--detailed-exitcode", fs.file); code != exitOK {
		t.Errorf("diff after the clean apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
