//go:build cgo && libvirt_dlopen

package providers

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestBackendsReadTheRunsEnvironment: a backend's settings come from
// Run.Getenv, not the process environment, so a bad value in the run's
// environment shows up in the run. (Moved from cmd/site with the table.)
func TestBackendsReadTheRunsEnvironment(t *testing.T) {
	run := runstate.Start(backends.NewRun())
	run.Getenv = func(k string) string {
		if k == "SITE_LIBVIRT_URI_MAP" {
			return "not-a-mapping"
		}
		return ""
	}
	s := Open(run)
	defer s.Close()
	step := &graph.Step{ID: "network/qemu:///system/lan", Phase: plan.PhaseNetwork,
		Network: &model.Network{Tenant: "t", Name: "lan", Host: "qemu:///system", CIDR: "10.0.0.0/24"}}
	d, err := s.DriverFor(step)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Plan(t.Context(), step, run)
	if err == nil || !strings.Contains(err.Error(), "SITE_LIBVIRT_URI_MAP") {
		t.Errorf("got %v, want the run's malformed SITE_LIBVIRT_URI_MAP reported", err)
	}
}

// TestLibvirtBuildChecksNothingAway: with libvirt built in, Check lets
// every step through.
func TestLibvirtBuildChecksNothingAway(t *testing.T) {
	s := Open(runstate.Start(backends.NewRun()))
	defer s.Close()
	g := &graph.Graph{Steps: []*graph.Step{{ID: "vm/qemu:///system/web", Phase: plan.PhaseVM, Tenant: "t"}}}
	if err := s.Check(g); err != nil || s.Absent() != nil {
		t.Errorf("Check: %v, Absent: %v; want both nil in a build with libvirt", err, s.Absent())
	}
}
