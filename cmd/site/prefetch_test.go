package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffReadsCachedZonesWhileLoading: a diff of an unchanged (cached)
// tenant file reads its zones while the load goes on. The proof: a
// second file the diff names evaluates until its time budget passes
// (a second), so the load fails; the zone's GET was sent before, while it
// ran. A diff that evaluates the tenant file, observes no DNS, or only
// some targets reads nothing before its load ends. When the load
// succeeds, the read ahead is the observation's: one GET in all.
func TestDiffReadsCachedZonesWhileLoading(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "ahead.example.test."
	file := tenantFile(t, srv, "ahead.example.test", `www: A: ["192.0.2.80"]`)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// Not beside the tenant's file: a diff of that file alone must not
	// load it.
	bomb, err := os.ReadFile(repoFile("compiler/testdata/hostile/bomb_comprehension_bomb.cue"))
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "a.cue")
	if err := os.WriteFile(slow, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		flags []string
		gets  int
	}{
		{name: "cached", gets: 1},
		{name: "--no-cache", flags: []string{"--no-cache"}},
		{name: "--only vm", flags: []string{"--only", "vm"}},
		{name: "--target", flags: []string{"--target", "dns/" + zone}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetRequests(zone)
			args := append(append([]string{"diff", "--eval-timeout", "1s"}, tc.flags...), file, slow)
			code, out, errOut := siteRun(t, srv, args...)
			if code != exitError || !strings.Contains(errOut, "passed its") {
				t.Fatalf("diff exit %d, want %d for a.cue's budget\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
			}
			if got := srv.Requests(zone).GET; got != tc.gets {
				t.Errorf("%d GETs of the zone by a diff whose load failed, want %d", got, tc.gets)
			}
		})
	}

	srv.ResetRequests(zone)
	code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff exit %d, want 0 and no changes\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := srv.Requests(zone).GET; got != 1 {
		t.Errorf("a converged diff from the cache read the zone %d times, want once", got)
	}
}
