package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrust_DiffOverLimitSendsNoRequest: a pull request's tenant file
// declared more zones than its grant allows (three lines of CUE make
// 10,000), and site diff, run on it with the operator's credentials,
// read every one: on Cloudflare that spends the account's request
// budget every other run needs. The diff now stops at the load, naming
// the limit, before a request on the tenant's behalf: neither its
// observation nor the zones read ahead while a cached file loads.
func TestTrust_DiffOverLimitSendsNoRequest(t *testing.T) {
	srv := pdnsEnv(t)
	zones := []string{"lim.example.test.", "a.lim.example.test.", "b.lim.example.test."}
	var src strings.Builder
	src.WriteString("package tenants\n\ntenants: lim: {\n\tdomain: \"lim.example.test\"\n")
	for _, z := range zones {
		fmt.Fprintf(&src, "\tdns: zones: %q: {provider: \"pdns\", records: www: A: [\"192.0.2.80\"]}\n", z)
	}
	src.WriteString("}\n")
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)) +
		"tenants: lim: {domains: [\"lim.example.test\"], providers: [\"pdns\"], limits: zones: 2}\n"
	file := writeSpec(t, site, "lim.cue", src.String())

	requests := func() int {
		n := srv.Requests("").GET
		for _, z := range zones {
			c := srv.Requests(z)
			n += c.GET + c.Writes()
		}
		return n
	}
	reset := func() {
		srv.ResetRequests("")
		for _, z := range zones {
			srv.ResetRequests(z)
		}
	}

	// The first diff evaluates the file (and caches its evaluation).
	reset()
	code, out, errOut := siteRun(t, srv, "diff", file)
	if code != exitError || !strings.Contains(errOut, "lim.cue:5:") ||
		!strings.Contains(errOut, "tenant lim declares 3 zones, over its limit of 2 in site.cue") ||
		!strings.Contains(errOut, "(tenants: lim: limits: zones: 3)") {
		t.Fatalf("diff exit %d, want %d and the limit at lim.cue:5\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	if n := requests(); n != 0 {
		t.Errorf("a diff of a tenant over its limit sent %d requests, want none", n)
	}

	// The second finds it cached, which is when zones are read ahead
	// while the rest loads: here a file that evaluates until its two
	// seconds pass (as TestDiffReadsCachedZonesWhileLoading), long
	// enough for reads ahead to be sent.
	reset()
	diffHeldByASlowFile(t, "diff", file)
	if n := requests(); n != 0 {
		t.Errorf("a diff loading a cached tenant over its limit sent %d requests, want none", n)
	}
}

// TestTrust_MaxStepsBoundsADiff: each tenant's limits bound its own
// file, but a pull request that edits every tenant's file could make
// one diff with the operator's credentials read up to the sum of their
// limits. --max-steps bounds the run: past it, the diff stops at the
// load, before its observation, and reads no more zones ahead than
// the bound while a cached file loads.
func TestTrust_MaxStepsBoundsADiff(t *testing.T) {
	srv := pdnsEnv(t)
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr))
	files := map[string]string{}
	var zones []string
	for _, tenant := range []string{"ma", "mb", "mc"} {
		domain := tenant + ".example.test"
		site += grant{tenant: tenant, domains: []string{domain}, providers: []string{"pdns"}}.cue()
		src := fmt.Sprintf("package tenants\n\ntenants: %s: {\n\tdomain: %q\n", tenant, domain)
		for _, z := range []string{domain + ".", "sub." + domain + "."} {
			zones = append(zones, z)
			src += fmt.Sprintf("\tdns: zones: %q: {provider: \"pdns\", records: www: A: [\"192.0.2.80\"]}\n", z)
		}
		files[tenant+".cue"] = src + "}\n"
	}
	dir := writeSpecs(t, site, files)
	specs := []string{filepath.Join(dir, "ma.cue"), filepath.Join(dir, "mb.cue"), filepath.Join(dir, "mc.cue")}
	zoneReads := func() int {
		n := 0
		for _, z := range zones {
			c := srv.Requests(z)
			n += c.GET + c.Writes()
		}
		return n
	}
	reset := func() {
		for _, z := range zones {
			srv.ResetRequests(z)
		}
	}

	code, out, errOut := siteRun(t, srv, append([]string{"diff", "--max-steps", "4"}, specs...)...)
	want := "the scope holds 6 steps, more than --max-steps 4 allows (tenant ma 2, tenant mb 2, tenant mc 2)"
	if code != exitError || !strings.Contains(errOut, want) {
		t.Fatalf("diff exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, exitError, want, out, errOut)
	}
	if n := zoneReads(); n != 0 {
		t.Errorf("a diff over --max-steps sent %d zone requests, want none", n)
	}
	if code, out, errOut := siteRun(t, srv, append([]string{"diff", "--max-steps", "6"}, specs...)...); code != exitOK {
		t.Fatalf("diff at its bound: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// Cached now, the files' zones are read ahead while the rest loads:
	// a file that evaluates until its two seconds pass keeps the load
	// going long enough for every read ahead to be sent.
	reset()
	// At most --parallelism zones are read ahead at once (4 by default),
	// each until the observation takes it; a bound below that is kept.
	diffHeldByASlowFile(t, append([]string{"diff", "--max-steps", "2"}, specs...)...)
	if n := zoneReads(); n != 2 {
		t.Errorf("a diff with --max-steps 2 read %d zones ahead, want 2 (the bound)", n)
	}
}

// TestTrust_MaxStepsListsNoHost: before its steps observe, a diff lists
// what the tenants no longer declare on each host their VMs name,
// reading every domain there. A scope already past --max-steps is
// refused without that listing: the diff connects to no host.
func TestTrust_MaxStepsListsNoHost(t *testing.T) {
	uri, connected := hungLibvirt(t)
	site := fmt.Sprintf("package site\n\nhosts: h: uri: %q\ntenants: lab: {domains: [\"lab.example.test\"], hosts: [\"h\"]}\n", uri)
	tenant := "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n"
	for _, vm := range []string{"a", "b", "c"} {
		tenant += fmt.Sprintf("\tvms: %s: {host: \"h\", autostart: false, running: true, vcpus: 1, memory: \"64MiB\"}\n", vm)
	}
	dir := writeSpecs(t, site, map[string]string{"lab.cue": tenant + "}\n"})
	c := startSite(t, false, "diff", "--max-steps", "2", "--config", filepath.Join(dir, "site.cue"), filepath.Join(dir, "lab.cue"))
	select {
	case <-connected:
		t.Fatalf("a diff past --max-steps connected to host h to list it\nstderr:\n%s", c.err)
	case <-c.done:
	}
	want := "the scope holds 3 steps, more than --max-steps 2 allows"
	if c.code != exitError || !strings.Contains(c.err.String(), want) {
		t.Errorf("exit %d, want %d and %q\nstderr:\n%s", c.code, exitError, want, c.err)
	}
}

// diffHeldByASlowFile runs site with args (a diff) and a file that
// evaluates until its two seconds pass (as in
// TestDiffReadsCachedZonesWhileLoading): the load then lasts long
// enough for every read ahead of the cached files to be sent, and the
// diff fails at that file's budget, before it observes anything.
func diffHeldByASlowFile(t *testing.T, args ...string) {
	t.Helper()
	bomb, err := os.ReadFile(repoFile("compiler/testdata/hostile/bomb_comprehension_bomb.cue"))
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "a.cue")
	if err := os.WriteFile(slow, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(siteProcess(t), append(append([]string{}, args...), "--eval-timeout", "2s", slow)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitError || !strings.Contains(stderr.String(), "passed its") {
		t.Fatalf("site %s: %v, want exit %d for a.cue's budget\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, exitError, &stdout, &stderr)
	}
}
