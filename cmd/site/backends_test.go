package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// useBackend makes the runs of test t build the backend called name with
// open instead of its own constructor (a fake's rate limit, a driver
// shared across runs), and puts the built-in one back when t ends.
func useBackend(t *testing.T, name string, open func(bk *runBackends, run *backends.Run)) {
	t.Helper()
	i := slices.IndexFunc(builtIn, func(b backend) bool { return b.name == name })
	if i < 0 {
		t.Fatalf("no built-in backend %q", name)
	}
	old := builtIn[i].open
	builtIn[i].open = open
	t.Cleanup(func() { builtIn[i].open = old })
}

// TestBackendsArePerRun: each run builds its own drivers, so nothing one
// run learned (a secret store's silent address, a host's observation)
// reaches the next.
func TestBackendsArePerRun(t *testing.T) {
	a, b := openBackends(backends.NewRun()), openBackends(backends.NewRun())
	defer a.Close()
	defer b.Close()
	for _, kind := range []plan.Phase{plan.PhaseSecrets, plan.PhaseVM, plan.PhaseNetwork} {
		if a.kinds[kind] == nil {
			t.Fatalf("no %s backend built", kind)
		}
		if a.kinds[kind] == b.kinds[kind] {
			t.Errorf("two runs share one %s driver", kind)
		}
	}
	for _, p := range []string{"powerdns", "cloudflare"} {
		if a.providers[p] == nil || a.providers[p] == b.providers[p] {
			t.Errorf("%s: got %v and %v, want one driver per run", p, a.providers[p], b.providers[p])
		}
	}
}

// TestBackendsReadTheRunsEnvironment: a backend's settings come from
// Run.Getenv, not the process environment, so a bad value in the run's
// environment shows up in the run.
func TestBackendsReadTheRunsEnvironment(t *testing.T) {
	run := backends.NewRun()
	run.Getenv = func(k string) string {
		if k == "SITE_LIBVIRT_URI_MAP" {
			return "not-a-mapping"
		}
		return ""
	}
	bk := openBackends(run)
	defer bk.Close()
	step := &graph.Step{ID: "network/qemu:///system/lan", Phase: plan.PhaseNetwork,
		Network: &model.Network{Tenant: "t", Name: "lan", Host: "qemu:///system", CIDR: "10.0.0.0/24"}}
	d, err := bk.driverFor(step)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Plan(t.Context(), step, run)
	if err == nil || !strings.Contains(err.Error(), "SITE_LIBVIRT_URI_MAP") {
		t.Errorf("got %v, want the run's malformed SITE_LIBVIRT_URI_MAP reported", err)
	}
}

// TestVersionListsEveryBackend: site version names each backend built in.
func TestVersionListsEveryBackend(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"version"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, b := range builtIn {
		if !strings.Contains(out.String(), "backend "+b.name+": ") {
			t.Errorf("version lacks backend %s:\n%s", b.name, out.String())
		}
	}
	if len(builtIn) != 4 {
		t.Errorf("got %d built-in backends, want 4 (cloudflare, libvirt, powerdns, vault)", len(builtIn))
	}
}
