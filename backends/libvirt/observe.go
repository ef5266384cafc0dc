//go:build cgo && libvirt_dlopen

package libvirt

import (
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/storage"
)

// hostObs is one run's observation of one host, with its storage
// (storage.View), as a step's planner reads it through the Driver d.
type hostObs struct {
	*storage.View
	d *Driver
}

// domObs is what was seen of one domain.
type domObs = hosts.Domain
