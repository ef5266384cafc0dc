//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// TestDiscoverSharesTheObservation: listing what a tenant no longer
// declares reads each host once, and a diff's steps plan from that same
// observation (a host with many domains cost a second read of every
// one); ForgetObserved makes the steps read it again, as apply does
// under its locks.
func TestDiscoverSharesTheObservation(t *testing.T) {
	r, vms := convergedDomains(t, 5)
	g := r.graph(vms, nil) // a first run connects
	r.d.ForgetObserved()

	plan := func() {
		if _, err := r.eng.Plan(context.Background(), g, runstate.Start(backends.NewRun())); err != nil {
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
