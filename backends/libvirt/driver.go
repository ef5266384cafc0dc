//go:build cgo && libvirt_dlopen

package libvirt

import (
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// URIMapEnv names the environment variable that rewrites host URIs.
const URIMapEnv = hosts.URIMapEnv

// ShutdownTimeoutEnv names the environment variable that overrides
// DefaultShutdownTimeout for NewFromEnv's driver (a Go duration).
const ShutdownTimeoutEnv = "SITE_LIBVIRT_SHUTDOWN_TIMEOUT"

// DomainTypeEnv names the environment variable that sets
// Options.DomainType for NewFromEnv's driver: "kvm" or "qemu".
const DomainTypeEnv = "SITE_LIBVIRT_DOMAIN_TYPE"

// Options configure a Driver (hosts.Options).
type Options = hosts.Options

// KeepAlive is libvirt's keepalive for a connection (conn.KeepAlive),
// named here for Options.
type KeepAlive = conn.KeepAlive

// Driver converges the VM and network steps of one site run against any
// number of libvirt hosts. It keeps one connection per host until Close
// (hosts.Set); make a new one for the next run.
type Driver struct {
	*hosts.Set
	// defineNet serialises network definitions: libvirt picks the first
	// free virbrN for a network that names no bridge, and two defines at
	// once picked the same one (the second start then failed "creating
	// bridge interface virbr0: File exists").
	defineNet *sync.Mutex
}

// New returns a Driver. Call Close when the run is over.
func New(opts Options) *Driver {
	return &Driver{Set: hosts.New(opts), defineNet: &sync.Mutex{}}
}

// counting returns a view of d whose calls t counts too
// (hosts.Set.Counting).
func (d *Driver) counting(t *hosts.Tally) *Driver {
	return &Driver{Set: d.Set.Counting(t), defineNet: d.defineNet}
}

// VMs returns the driver for plan.PhaseVM steps.
func (d *Driver) VMs() backends.Driver { return vmDriver{d} }

// Pools returns the driver for plan.PhaseStorage steps.
func (d *Driver) Pools() backends.Driver { return poolDriver{d} }

// Networks returns the driver for plan.PhaseNetwork steps.
func (d *Driver) Networks() backends.Driver { return netDriver{d} }

// observe returns the run's observation of host (hosts.Set.Observe),
// with the storage read beside it.
func (d *Driver) observe(host string) (*hostObs, error) {
	o, err := d.Observe(host)
	if err != nil {
		return nil, err
	}
	return &hostObs{Obs: o, d: d, volCache: hosts.Kept(o, "volumes", newVolCache)}, nil
}

// refuseUnacked fails a step whose plan holds an action behind a gate
// that was not acknowledged. The executor checks every gate first; this
// guards the one irreversible place, right before the first call.
func refuseUnacked[O interface{ gate() plan.Gate }](step string, ops []O, run *backends.Run) error {
	for _, o := range ops {
		if g := o.gate(); g != "" && !run.Acked[g] {
			h := hint.Hint{Kind: hint.Acknowledge, Gate: string(g)}
			return hint.Errorf(h, "step %s needs %s, which was not acknowledged: nothing was changed (%v)", step, g, h)
		}
	}
	return nil
}

// DefaultShutdownTimeout is how long NewFromEnv's driver waits for a
// guest to shut down before forcing it off.
const DefaultShutdownTimeout = 2 * time.Minute
