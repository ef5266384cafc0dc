//go:build !cgo || !libvirt_dlopen

package providers

import (
	"errors"

	"github.com/site-tools/site/backends"
	// Only its help topics are built here: site help libvirt and
	// storage answer in every build, the manual of what this one lacks.
	_ "github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/compiler/hint"
)

// errNoLibvirt says what a build without libvirt lacks and how to get
// one that has it, on one line.
var errNoLibvirt = hint.Wrap(errors.New("this site was built without libvirt (CGO_ENABLED=0, or without -tags libvirt_dlopen)"),
	hint.Hint{Kind: hint.InstallWithLibvirt})

// libvirtBackend is libvirt as a build without it lists it: site
// version says so, and Set.Check refuses a graph that needs it.
var libvirtBackend = Backend{
	Name:  "libvirt",
	About: func() string { return "not built in: " + errNoLibvirt.Error() },
	Open:  func(s *Set, _ *backends.Run) { s.absent = errNoLibvirt },
}
