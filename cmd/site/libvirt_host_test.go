//go:build cgo && libvirt_dlopen

package main

import (
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/plan"
)

// libvirtTestHost points the spec's qemu:///system at libvirt's
// in-process test driver, so the network phase runs for real without a
// system daemon.
func libvirtTestHost(t *testing.T) {
	t.Helper()
	if err := libvirt.Available(); err != nil {
		libvirttest.Need(t, "libvirt cannot be loaded here: "+err.Error())
	}
	// One driver for the whole test, not one per run: test:///default
	// keeps what a run defined only while a connection to it is open.
	d := libvirt.New(libvirt.Options{URIMap: map[string]string{"qemu:///system": "test:///default"}})
	t.Cleanup(func() { d.Close() })
	useBackend(t, "libvirt", func(bk *runBackends, _ *backends.Run) {
		bk.Kinds[plan.PhaseVM], bk.Kinds[plan.PhaseNetwork] = d.VMs(), d.Networks()
	})
}
