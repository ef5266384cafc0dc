//go:build cgo && libvirt_dlopen

package providers

import (
	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/compiler/plan"
)

// libvirtBackend converges VMs, networks and storage pools through
// libvirt.org/go/libvirt, which needs cgo. With the build tag
// libvirt_dlopen it opens libvirt.so.0 at run time, so building needs
// no libvirt-dev and the binary starts (site vet works) where libvirt
// is missing. Without the tag the binding links libvirt at build time
// through pkg-config: that build leaves libvirt out (nolibvirt.go),
// so that a plain go install works on any machine.
var libvirtBackend = Backend{
	Name: "libvirt",
	About: func() string {
		status := "available"
		if err := libvirt.Available(); err != nil {
			status = "unavailable: " + err.Error()
		}
		return "libvirt (dlopen; " + status + "); host URIs rewritten by " + libvirt.URIMapEnv + ", domain type (kvm or qemu) forced by " + libvirt.DomainTypeEnv
	},
	Open: func(s *Set, run *backends.Run) {
		d := libvirt.NewFromEnv(run)
		s.Kinds[plan.PhaseVM] = d.VMs()
		s.Kinds[plan.PhaseNetwork] = d.Networks()
		s.Kinds[plan.PhaseStorage] = d.Pools()
		s.Leases = d
		s.Discoverers = append(s.Discoverers, d)
		s.Owners = d
		s.Closers = append(s.Closers, d.Close)
	},
}
