//go:build !cgo || !libvirt_dlopen

package providers

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestCheckWithoutLibvirt: a build without libvirt refuses, on one line
// that says how to get a build with it, a graph holding a VM, network or
// pool step, or a record that publishes a VM's lease; a graph of DNS
// and secrets alone passes.
func TestCheckWithoutLibvirt(t *testing.T) {
	zone := func(lease bool) *model.Zone {
		r := &model.RRset{Name: "www.a.test.", Type: "A", TTL: 300, Values: []string{"192.0.2.1"}}
		if lease {
			r = &model.RRset{Name: "www.a.test.", Type: "A", TTL: 300, Lease: &model.LeaseRef{Host: "qemu:///system", VM: "web"}}
		}
		return &model.Zone{Name: "a.test.", Tenant: "t", RRsets: []*model.RRset{r}}
	}
	dns := func(lease bool) *graph.Step {
		return &graph.Step{ID: "dns/a.test.", Phase: plan.PhaseDNS, Tenant: "t", Zone: zone(lease)}
	}
	secret := &graph.Step{ID: "secret/x", Phase: plan.PhaseSecrets}
	for _, tc := range []struct {
		name  string
		steps []*graph.Step
		want  string // "" passes
	}{
		{"dns and secrets", []*graph.Step{secret, dns(false)}, ""},
		{"vm", []*graph.Step{dns(false),
			{ID: "vm/qemu:///system/web", Phase: plan.PhaseVM, Tenant: "t"},
			{ID: "network/qemu:///system/lan", Phase: plan.PhaseNetwork, Tenant: "t"}},
			"step vm/qemu:///system/web of tenant t (and 1 more) needs libvirt: this site was built without libvirt"},
		{"pool", []*graph.Step{{ID: "pool/qemu:///system/default", Phase: plan.PhaseStorage}},
			"step pool/qemu:///system/default needs libvirt"},
		{"lease", []*graph.Step{dns(true)}, "step dns/a.test. of tenant t publishes a VM's DHCP lease address, which needs libvirt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Open(runstate.Start(backends.NewRun()))
			defer s.Close()
			err := s.Check(&graph.Graph{Steps: tc.steps})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tc.want == "":
				return
			case err == nil:
				t.Fatalf("got no error, want %q", tc.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "\n") || hint.KindOf(err) != hint.InstallWithLibvirt {
				t.Errorf("got %q, want one line starting %q that says how to install a site with libvirt", msg, tc.want)
			}
		})
	}
}
