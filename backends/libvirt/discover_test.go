package libvirt

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestDiscoverSharesTheObservation: listing what a tenant no longer
// declares reads each host once, and a diff's steps plan from that same
// observation (a host with many domains cost a second read of every
// one); ForgetObserved makes the steps read it again, as apply does
// under its locks.
func TestDiscoverSharesTheObservation(t *testing.T) {
	fx := libvirttest.Fixture{}
	var vms []*model.VM
	for i := range 5 {
		vm := &model.VM{Tenant: tenant, Name: fmt.Sprintf("vm%d", i), Autostart: false, Running: true, VCPUs: 1, MemoryBytes: 64 << 20}
		def := newDomain(vm.Name, "test")
		(&wantDomain{vm: vm, owner: &owner{Tenant: tenant}}).apply(def, "")
		x, err := def.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		fx.Domains = append(fx.Domains, x)
		vms = append(vms, vm)
	}
	r := newRig(t, libvirttest.TestURI(t, fx), Options{})
	for _, vm := range vms {
		vm.Host = r.host
	}
	g := r.graph(vms, nil) // a first run connects
	r.d.ForgetObserved()

	plan := func() {
		if _, err := r.eng.Plan(context.Background(), g, backends.NewRun()); err != nil {
			t.Fatal(err)
		}
	}
	before := r.d.Calls()
	plan()
	alone := r.d.Calls() - before

	r.d.ForgetObserved()
	before = r.d.Calls()
	if _, err := r.d.Discover(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	plan()
	if got := r.d.Calls() - before; got != alone {
		t.Errorf("listing and planning cost %d libvirt calls, planning alone %d: the listing should read what the plan reads", got, alone)
	}

	r.d.ForgetObserved()
	before = r.d.Calls()
	if _, err := r.d.Discover(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	r.d.ForgetObserved()
	plan()
	if got := r.d.Calls() - before; got != 2*alone {
		t.Errorf("listing, forgetting and planning cost %d libvirt calls, want the plan's %d twice", got, alone)
	}
}
