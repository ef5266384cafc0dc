//go:build cgo && libvirt_dlopen

package vmstep

import (
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/storage"
)

// hostSet is the run's hosts as a VM step's planner and applier use
// them: a step's apply runs on a counting view (counting).
type hostSet struct{ *hosts.Set }

// counting returns a view of d whose calls t counts too
// (hosts.Set.Counting).
func (d *hostSet) counting(t *hosts.Tally) *hostSet { return &hostSet{d.Set.Counting(t)} }

// observe returns the run's observation of host (hosts.Set.Observe),
// with the storage read beside it.
func (d *hostSet) observe(host string) (*hostObs, error) {
	o, err := d.Observe(host)
	if err != nil {
		return nil, err
	}
	return &hostObs{View: storage.Of(o), d: d}, nil
}

// hostObs is one run's observation of one host, with its storage
// (storage.View), as a step's planner reads it through d.
type hostObs struct {
	*storage.View
	d *hostSet
}

// domObs is what was seen of one domain.
type domObs = hosts.Domain
