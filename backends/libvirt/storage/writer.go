//go:build cgo && libvirt_dlopen

package storage

import (
	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// Writer writes into one host's storage on a step's behalf: volumes,
// uploads and their markers. A VM step's applier and an image step
// make one for the connection they hold.
type Writer struct {
	Set  *hosts.Set // the step's view (hosts.Set.Counting): it counts the step's calls
	C    *libvirt.Connect
	Host string
	Run  *backends.Run // nil in tests that need no interrupt or progress
	// Tenant is the tenant whose step this is, which its upload markers
	// name; "" for the image steps of site.cue.
	Tenant string
}

// calling counts a call to the Writer's host and names it to the run
// (hosts.Set.Calling), with what it acts on, until done is called.
func (a *Writer) calling(call string) (done func()) {
	return a.Set.Calling(a.Set.Server(a.Host), call)
}
