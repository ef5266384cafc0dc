package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/plan"
)

// twoZonesFile writes a tenant with two PowerDNS zones: good on srv, and
// down on a loopback port where nothing listens, so it can never be
// observed; and the site.cue that names both servers.
func twoZonesFile(t *testing.T, srv *pdnstest.Server) string {
	t.Helper()
	src := `package tenants

tenants: office1: {
	domain: "good.example.test"
	dns: zones: {
		"good.example.test": {
			provider: "pdns"
			ttl: 300
			records: www: A: ["192.0.2.80"]
		}
		"down.example.test": {
			provider: "down"
			ttl: 300
			records: www: A: ["192.0.2.81"]
		}
	}
}
`
	// Port 1 on loopback: nothing listens there.
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)+pdnsProvider("down", "http://127.0.0.1:1", "PDNS_API_KEY", "off"),
		grant{tenant: "office1", domains: []string{"good.example.test", "down.example.test"}, providers: []string{"pdns", "down"}})
	return writeSpec(t, site, "office1.cue", src)
}

// TestTargetLeavesAnUnobservableStepOut is INCIDENTS.md 3 in small: a
// step that cannot be observed stops the whole apply, and --target is how
// the operator converges the rest without it, safely.
func TestTargetLeavesAnUnobservableStepOut(t *testing.T) {
	srv := pdnsEnv(t)
	const good = "good.example.test."
	file := twoZonesFile(t, srv)

	// Without --target, apply refuses everything: it could not see one
	// zone, so it changes none.
	code, stdout, stderr := siteRun(t, srv, "apply", file)
	if code != exitError {
		t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, stdout, stderr)
	}
	for _, want := range []string{"could not be planned, so nothing was changed", "dns/down.example.test.", "--target"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if got := srv.Requests("").Writes() + srv.Requests(good).Writes(); got != 0 {
		t.Errorf("got %d writes from a refused apply, want none", got)
	}
	if srv.Exists(t, good) {
		t.Errorf("zone %s was created by a refused apply", good)
	}

	// A pattern that matches nothing is an error naming what is in
	// scope, and changes nothing.
	code, stdout, stderr = siteRun(t, srv, "apply", "--target", "dns/good.example.test", file)
	if code != exitError {
		t.Fatalf("apply with a typo exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, stdout, stderr)
	}
	for _, want := range []string{
		`site: --target: pattern "dns/good.example.test" matches no step (DNS step IDs end in a dot: dns/good.example.test.); the steps in scope are:`,
		"\n  dns/down.example.test.\n  dns/good.example.test.",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if stdout != "" {
		t.Errorf("got stdout %q, want none: nothing is observed before the scope is valid", stdout)
	}
	if srv.Exists(t, good) {
		t.Errorf("zone %s was created by an apply whose --target matched nothing", good)
	}

	// With --target on the good zone, apply converges that zone only.
	code, stdout, stderr = siteRun(t, srv, "apply", "--target", "dns/"+good, file)
	if code != exitOK {
		t.Fatalf("targeted apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "down.example.test") {
		t.Errorf("a targeted apply mentions the zone it leaves out:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if got := srv.Query(t, "www.good.example.test.", "A"); len(got) != 1 || got[0] != "300 192.0.2.80" {
		t.Errorf("got %q, want www served", got)
	}

	// A glob targets the same step; it is converged now.
	code, stdout, stderr = siteRun(t, srv, "diff", "--detailed-exitcode", "--target", "dns/good.*", file)
	if code != exitOK || !strings.Contains(stdout, "No changes.") {
		t.Errorf("targeted diff exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestTargetIsPartOfASavedPlan: apply --plan takes the targets the plan
// was saved with, and refuses others as it refuses another --only.
func TestTargetIsPartOfASavedPlan(t *testing.T) {
	srv := pdnsEnv(t)
	const good = "good.example.test."
	file := twoZonesFile(t, srv)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))

	code, stdout, stderr := siteRun(t, srv, "diff", "--target", "dns/"+good, "--out", planFile, file)
	if code != exitOK {
		t.Fatalf("targeted diff exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	saved, err := plan.ReadSaved(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Targets; len(got) != 1 || got[0] != "dns/"+good {
		t.Fatalf("saved plan targets %q, want [dns/%s]", got, good)
	}

	code, stdout, stderr = siteRun(t, srv, "apply", "--plan", planFile, "--target", "dns/*", file)
	if code != exitError {
		t.Fatalf("apply --plan with other targets exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, stdout, stderr)
	}
	want := "site: --target 'dns/*' differs from what the plan " + planFile + " was saved with (--target dns/" + good + "): drop it, or run site diff --out again with it"
	if !strings.Contains(stderr, want) {
		t.Errorf("got stderr:\n%s\nwant it to contain %q", stderr, want)
	}
	if srv.Exists(t, good) {
		t.Errorf("zone %s was created by a refused apply --plan", good)
	}

	// Without --target, apply --plan takes the plan's: the zone that
	// cannot be observed stays out and the good one is converged.
	code, stdout, stderr = siteRun(t, srv, "apply", "--plan", planFile, file)
	if code != exitOK {
		t.Fatalf("apply --plan exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := srv.Query(t, "www.good.example.test.", "A"); len(got) != 1 {
		t.Errorf("got %q, want www served", got)
	}
	// The same targets in another order (and repeated) are the same scope.
	if code, stdout, stderr = siteRun(t, srv, "diff", "--target", "dns/"+good, "--target", "dns/good.*", "--target", "dns/"+good, "--out", planFile, file); code != exitOK {
		t.Fatalf("diff exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr = siteRun(t, srv, "apply", "--plan", planFile, "--target", "dns/good.*", "--target", "dns/"+good, file); code != exitOK {
		t.Errorf("apply --plan with the same targets reordered exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
