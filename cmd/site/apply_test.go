package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests drive site diff --out and site apply --plan against a real
// PowerDNS (pdnsEnv, siteRun and tenantFile are in powerdns_test.go).

// TestApplyPlanRefusesStalePlan is incident 3's "plan evidence goes
// stale": a plan saved before someone changed the live zone must not be
// applied, and a fresh one must.
func TestApplyPlanRefusesStalePlan(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "stale.example.test."
	srv.CreateZone(t, zone)
	file := tenantFile(t, srv, "stale.example.test", `
			www: A: ["192.0.2.80"]`)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))

	code, stdout, stderr := siteRun(t, srv, "diff", "--out", planFile, file)
	if code != exitOK || !strings.Contains(stdout, "# dns/stale.example.test. (tenant office1)\n  + www A") {
		t.Fatalf("diff exit %d, want 0 and the create\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// Someone else writes into the zone after the plan was saved.
	srv.Replace(t, zone, pdnstest.RRset{Name: "ftp.stale.example.test.", Type: "A", TTL: 60, Records: []string{"198.51.100.21"}})
	srv.ResetRequests(zone)
	code, stdout, stderr = siteRun(t, srv, "apply", "--plan", planFile, file)
	if code != exitError {
		t.Fatalf("apply --plan exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, stdout, stderr)
	}
	want := "site: the plan is stale: dns/stale.example.test. changed on the live system since the plan was saved (its planned changes are the same: what changed is live data they do not write, such as another writer's record, which the plan's checks read); save a fresh one with site diff --out, review it and apply that"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say the plan is stale:\n%s\nwant a line %q", stderr, want)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("a stale plan made %d writes, want none", got)
	}

	// A fresh plan applies, and the foreign record survives.
	if code, stdout, stderr := siteRun(t, srv, "diff", "--out", planFile, file); code != exitOK {
		t.Fatalf("second diff exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := siteRun(t, srv, "apply", "--plan", planFile, file); code != exitOK {
		t.Fatalf("apply of a fresh plan exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := srv.Query(t, "www.stale.example.test.", "A"); len(got) != 1 {
		t.Errorf("www: got %q, want the applied record served", got)
	}
	if got := srv.Query(t, "ftp.stale.example.test.", "A"); len(got) != 1 {
		t.Errorf("ftp: got %q, want the foreign record to survive", got)
	}

	// The same plan again (a retried CI job): the zone changed since it
	// was saved, by this very plan, and nothing is left to do.
	srv.ResetRequests(zone)
	code, stdout, stderr = siteRun(t, srv, "apply", "--plan", planFile, file)
	want = "site: the plan is stale: dns/stale.example.test. already matches the spec: the plan was applied, or its changes were made another way, so nothing is left to apply for it; nothing to apply (site diff shows what the live systems hold now)"
	if code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("apply --plan of an applied plan: exit %d, want %d and a line %q\nstdout:\n%s\nstderr:\n%s", code, exitError, want, stdout, stderr)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("applying an applied plan again made %d writes, want none", got)
	}
}

// TestApplyPlanRefusesEditedSpec: the spec changed after the plan was
// saved, the live zone did not; applying would do what nobody reviewed.
// Nothing is observed either: the file's hash gives it away.
func TestApplyPlanRefusesEditedSpec(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "edited.example.test."
	srv.CreateZone(t, zone)
	file := tenantFile(t, srv, "edited.example.test", `
			www: A: ["192.0.2.80"]`)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	if code, stdout, stderr := siteRun(t, srv, "diff", "--out", planFile, file); code != exitOK {
		t.Fatalf("diff exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "192.0.2.80", "192.0.2.81", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests(zone)
	code, stdout, stderr := siteRun(t, srv, "apply", "--plan", planFile)
	// The saved plan hashes its spec files, so the edited file is named
	// before anything is observed.
	want := "site: the plan is stale: the specs changed since it was saved: " + file + " changed; run site diff --out again"
	if code != exitError || !strings.Contains(stderr, want) {
		t.Fatalf("apply --plan exit %d, want 1 and a stale plan\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := srv.Requests(zone); got.GET+got.Writes() != 0 {
		t.Errorf("made %+v, want no request", got)
	}
}
