package main

import (
	"strings"
	"testing"
)

// TestDiffRemembersWhatTheCheckAfterApplyFound: an ALIAS whose target
// does not resolve is written, and the check after apply says the
// server answers SERVFAIL there (exit 1). The next diff plans no change
// (the API holds what the spec wants) but asks the server again, over
// DNS, and reports the same problem with exit 1, where it used to say
// "No changes" and exit 0 (issue 27); so does the next apply. Fixed in
// the spec, the problem goes away.
func TestDiffRemembersWhatTheCheckAfterApplyFound(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "alias.example.test"
	write := func(target string) string {
		return tenantFile(t, srv, zone, `
			lb: A: ["192.0.2.7"]
			www: ALIAS: "`+target+`"`)
	}
	file := write("nothing." + zone + ".")
	problem := "www." + zone + ". ALIAS: written, but the server answers SERVFAIL"

	code, stdout, stderr := siteRun(t, srv, "apply", file)
	if code != exitError || !strings.Contains(stdout+stderr, problem) {
		t.Fatalf("apply: exit %d, want %d and the problem %q:\n%s%s", code, exitError, problem, stdout, stderr)
	}
	for _, cmd := range []string{"diff", "apply"} {
		code, stdout, stderr = siteRun(t, srv, cmd, file)
		if code != exitError {
			t.Errorf("%s: exit %d, want %d:\n%s%s", cmd, code, exitError, stdout, stderr)
		}
		for _, want := range []string{"Problems (what the live systems serve differs from the spec", problem, "; 1 problem."} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", cmd, want, stdout)
			}
		}
		if strings.Contains(stdout, "No changes") {
			t.Errorf("%s says there is nothing to do:\n%s", cmd, stdout)
		}
		if want := "1 problem: what the live systems serve differs from the spec"; !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, stderr)
		}
	}

	file = write("lb." + zone + ".")
	if code, stdout, stderr := siteRun(t, srv, "apply", file); code != 0 {
		t.Fatalf("apply of the fixed spec: exit %d:\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := siteRun(t, srv, "diff", file); code != 0 || !strings.Contains(stdout, "No changes") {
		t.Errorf("diff of the fixed spec: exit %d, want 0 and no changes:\n%s%s", code, stdout, stderr)
	}
}
