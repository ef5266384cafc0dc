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
	bomb, err := os.ReadFile(repoFile("compiler/testdata/hostile/bomb_comprehension_bomb.cue"))
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "a.cue")
	if err := os.WriteFile(slow, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	reset()
	cmd := exec.Command(siteProcess(t), "diff", "--eval-timeout", "2s", file, slow)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitError || !strings.Contains(stderr.String(), "passed its") {
		t.Fatalf("diff: %v, want exit %d for a.cue's budget\nstdout:\n%s\nstderr:\n%s", err, exitError, &stdout, &stderr)
	}
	if n := requests(); n != 0 {
		t.Errorf("a diff loading a cached tenant over its limit sent %d requests, want none", n)
	}
}
