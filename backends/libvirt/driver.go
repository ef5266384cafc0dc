//go:build cgo && libvirt_dlopen

package libvirt

import (
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/netstep"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/backends/libvirt/vmstep"
)

// URIMapEnv names the environment variable that rewrites host URIs.
const URIMapEnv = hosts.URIMapEnv

// ShutdownTimeoutEnv names the environment variable that overrides
// DefaultShutdownTimeout for NewFromEnv's driver (a Go duration).
const ShutdownTimeoutEnv = hosts.ShutdownTimeoutEnv

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
	nets netstep.Driver
}

// New returns a Driver. Call Close when the run is over.
func New(opts Options) *Driver {
	s := hosts.New(opts)
	return &Driver{Set: s, nets: netstep.New(s)}
}

// VMs returns the driver for plan.PhaseVM steps.
func (d *Driver) VMs() backends.Driver { return vmstep.New(d.Set) }

// Pools returns the driver for plan.PhaseStorage steps.
func (d *Driver) Pools() backends.Driver { return storage.NewDriver(d.Set) }

// Networks returns the driver for plan.PhaseNetwork steps.
func (d *Driver) Networks() backends.Driver { return d.nets }

// observe returns the run's observation of host (hosts.Set.Observe),
// with the storage read beside it.
func (d *Driver) observe(host string) (*storage.View, error) {
	o, err := d.Observe(host)
	if err != nil {
		return nil, err
	}
	return storage.Of(o), nil
}

// DefaultShutdownTimeout is how long NewFromEnv's driver waits for a
// guest to shut down before forcing it off.
const DefaultShutdownTimeout = 2 * time.Minute
