package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// TestFaultsCloudflareApply runs the connection faults of the PowerDNS
// suite, runs of 429s and of HTML 502s, between site and the fake Cloudflare
// (cftest), twice each, on a zone that also holds records another writer
// made. After each run no foreign record changed, no wanted rrset is
// gone, the run converged (a diff then says so) or exited 1 saying why,
// its requests bounded by the driver's tries; then a clean apply
// converges.
func TestFaultsCloudflareApply(t *testing.T) {
	const zone = "cf.faults.example.test"
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	t.Setenv("CF_TOKEN", cfToken)
	t.Setenv("NO_COLOR", "1")
	t.Setenv(cloudflare.EnvAPIURL, "")
	fp := newFaultProxy(t, cf.URL)
	const retries = 2
	// Stalls end after 250 ms instead of the client's two minutes, and
	// retries wait milliseconds, so a faulty run costs the suite little.
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000, Retries: retries, MaxWait: 20 * time.Millisecond,
			Transport: &http.Transport{ResponseHeaderTimeout: 250 * time.Millisecond}}
	})
	id := cf.AddZone(zone)
	for _, r := range []cftest.Record{
		{Name: zone, Type: "MX", Content: "mx.example.org", Priority: u16(10), TTL: 3600},
		{Name: "legacy." + zone, Type: "A", Content: "192.0.2.200", TTL: 3600, Comment: "made by hand"},
		{Name: "_dmarc." + zone, Type: "TXT", Content: `"v=DMARC1; p=none"`, TTL: 3600},
	} {
		if _, err := cf.AddRecord(id, r); err != nil {
			t.Fatalf("AddRecord %+v: %v", r, err)
		}
	}
	site := siteSrc(cfProvider("cf", fp.URL, `{env: "CF_TOKEN"}`),
		grant{tenant: "office1", domains: []string{zone}, providers: []string{"cf"}})
	file := writeSpec(t, site, "office1.cue", "")
	writeVersion := func(v int) {
		src := fmt.Sprintf(`package tenants

tenants: office1: {
	domain: %q
	dns: zones: %q: {provider: "cf", ttl: 300, records: {
		www: A: ["192.0.2.%d"]
		"@": TXT: ["v=site-%d"]
		api: AAAA: ["2001:db8::%x"]
		alias: CNAME: "www.%s."
	}}
}
`, zone, zone, 1+v%200, v, v+1, zone)
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantedNames := []string{"www." + zone + " A", zone + " TXT", "api." + zone + " AAAA", "alias." + zone + " CNAME"}
	requests := func() int {
		n := 0
		for _, c := range cf.Counts() {
			n += c
		}
		return n
	}
	apply := func(what string) int {
		t.Helper()
		code, stdout, stderr := cfRun(t, "apply", "--yes", file)
		checkExit(t, what, code, stdout, stderr)
		if code == exitOK {
			// Exit 0 promises the zone holds the spec: a diff on a clean
			// line must find nothing.
			if c, o, e := cfRun(t, "diff", "--detailed-exitcode", file); c != exitOK {
				t.Errorf("%s: apply exited 0 but diff exit %d\nstdout:\n%s\nstderr:\n%s", what, c, o, e)
			}
		}
		return code
	}

	seed := *faultSeed
	rnd := rand.New(rand.NewSource(seed))
	writeVersion(1)
	if apply("first apply") != exitOK {
		t.Fatal("first apply failed")
	}
	writeVersion(2)
	cf.ResetCounts()
	if apply("second apply") != exitOK {
		t.Fatal("second apply failed")
	}
	bound := (retries+1)*requests() + 4

	var cfFaults []fault
	for _, f := range faults {
		if f.answer == nil {
			cfFaults = append(cfFaults, f)
		}
	}
	cfFaults = append(cfFaults, fault{name: "429", toxics: func(t *testing.T, _ *faultProxy, pick func(int) int) {
		cf.RateLimit(1+pick(2*retries), 0)
	}})
	cfFaults = append(cfFaults, fault{name: "502", toxics: func(t *testing.T, _ *faultProxy, pick func(int) int) {
		cf.BadGateway(1 + pick(2*retries))
	}})
	v := 2
	outcomes := map[string][2]int{} // fault -> converged, failed
	for i := 0; i < 2*len(cfFaults) && !t.Failed(); i++ {
		f := cfFaults[i%len(cfFaults)]
		v += 1 + rnd.Intn(50)
		what := fmt.Sprintf("seed %d run %d (%s, version %d)", seed, i, f.name, v)
		writeVersion(v)
		before := cfSnapshot(cf, id)
		cf.ResetCounts()
		if f.toxics != nil {
			f.toxics(t, fp, lockedPick(rnd.Int63()))
		}
		code, stdout, stderr := cfRun(t, "apply", "--yes", file)
		fp.clear(t)
		cf.RateLimit(0, 0)
		cf.BadGateway(0)
		n := requests()
		checkExit(t, what, code, stdout, stderr)
		after := cfSnapshot(cf, id)
		for k, c := range before {
			if c != cloudflare.Marker("office1") && after[k] != c {
				t.Errorf("%s: foreign record %s (comment %q) changed: now %q", what, k, c, after[k])
			}
		}
		for k, c := range after {
			if _, ok := before[k]; !ok && c != cloudflare.Marker("office1") {
				t.Errorf("%s: an unmarked record %s appeared (comment %q)", what, k, c)
			}
		}
		for _, w := range wantedNames {
			if hasRRset(before, w) && !hasRRset(after, w) {
				t.Errorf("%s: wanted rrset %s was deleted", what, w)
			}
		}
		if n > bound {
			t.Errorf("%s: %d API requests, want at most %d", what, n, bound)
		}
		o := outcomes[f.name]
		o[min(code, 1)]++
		outcomes[f.name] = o
		if code == exitOK {
			if c, o, e := cfRun(t, "diff", "--detailed-exitcode", file); c != exitOK {
				t.Errorf("%s: apply exited 0 but diff exit %d\nstdout:\n%s\nstderr:\n%s", what, c, o, e)
			}
		}
	}
	t.Logf("seed %d: converged, failed per fault: %v", seed, outcomes)
	failed := 0
	for _, o := range outcomes {
		failed += o[1]
	}
	if failed == 0 {
		t.Errorf("seed %d: no run failed: the faults never reached site", seed)
	}
	if apply("clean apply after the faults") != exitOK {
		t.Errorf("clean apply after the faults did not converge")
	}
}

// cfSnapshot is the fake zone's records, "name type content" to comment.
func cfSnapshot(cf *cftest.Server, id string) map[string]string {
	out := map[string]string{}
	for _, r := range cf.Records(id) {
		out[fmt.Sprintf("%s %s %s %v", r.Name, r.Type, r.Content, r.Data)] = r.Comment
	}
	return out
}

// hasRRset reports whether snapshot s holds a record of rrset ("name type").
func hasRRset(s map[string]string, rrset string) bool {
	for k := range s {
		if strings.HasPrefix(k, rrset+" ") {
			return true
		}
	}
	return false
}

// cfRun runs site in process; the token must never be in its output.
func cfRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if strings.Contains(stdout.String()+stderr.String(), cfToken) {
		t.Fatalf("site %s printed the token", strings.Join(args, " "))
	}
	return code, stdout.String(), stderr.String()
}
