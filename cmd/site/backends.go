package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/lease"
	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/vault"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// backend is one backend built into site: what site version says of it,
// and how a run builds its drivers.
type backend struct {
	name string
	// about describes it for site version: the API and library it talks
	// through and the environment variables it reads.
	about func() string
	// open builds the backend's drivers for run into bk, reading the
	// environment through run.Getenv.
	open func(bk *runBackends, run *backends.Run)
}

// builtIn lists every backend this binary has, in the order site
// version prints them. Each run builds its own drivers from it (see
// openBackends), so nothing a backend learns outlives the run.
var builtIn = []backend{
	{
		name: "cloudflare",
		about: func() string {
			return "Cloudflare DNS (cloudflare-go v0.119.0); batch writes, comment owner marker; " + cloudflare.EnvAPIURL + " overrides the API URL"
		},
		open: func(bk *runBackends, _ *backends.Run) { bk.providers["cloudflare"] = cloudflare.New() },
	},
	{
		name: "libvirt",
		about: func() string {
			status := "available"
			if err := libvirt.Available(); err != nil {
				status = "unavailable: " + err.Error()
			}
			return "libvirt (dlopen; " + status + "); host URIs rewritten by " + libvirt.URIMapEnv + ", domain type (kvm or qemu) forced by " + libvirt.DomainTypeEnv
		},
		open: func(bk *runBackends, run *backends.Run) {
			d := libvirt.NewFromEnv(run)
			bk.kinds[plan.PhaseVM] = d.VMs()
			bk.kinds[plan.PhaseNetwork] = d.Networks()
			bk.kinds[plan.PhaseStorage] = d.Pools()
			bk.leases = d
			bk.discoverers = append(bk.discoverers, d)
			bk.owners = d
			bk.closers = append(bk.closers, d.Close)
		},
	},
	{
		name: "powerdns",
		about: func() string {
			return "PowerDNS Authoritative HTTP API (go-powerdns v3.17.0); verified over DNS at " + powerdns.EnvDNSAddr + " (host:port, or off), else the API host on port 53"
		},
		open: func(bk *runBackends, _ *backends.Run) { bk.providers["powerdns"] = &powerdns.Driver{} },
	},
	{
		name: "vault",
		about: func() string {
			return "Vault/OpenBao KV v2 secrets (hashicorp/vault/api v1.23.0); addrs in order, then VAULT_ADDR; SITE_VAULT_ADDRS replaces addrs"
		},
		open: func(bk *runBackends, _ *backends.Run) { bk.kinds[plan.PhaseSecrets] = vault.New() },
	},
}

// runBackends are the drivers one run uses. Close them when the run ends.
type runBackends struct {
	kinds     map[plan.Phase]backends.Driver // secrets, network, storage, vm
	providers map[string]backends.Driver     // DNS zones by provider kind
	closers   []func() error
	// discoverers find the steps only observing names (see discover).
	discoverers []backends.Discoverer
	// owners lists the owner elements on a host, for site leftovers;
	// nil without a libvirt backend.
	owners backends.OwnerLister
	// leases reads the DHCP leases of the VMs that publish address
	// "lease" (nil without a libvirt backend); apply waits for them up
	// to leaseTimeout and tells leaseProgress.
	leases        lease.Reader
	leaseTimeout  time.Duration
	leaseProgress func(string)
}

// openBackends builds every built-in backend's drivers for one run.
func openBackends(run *backends.Run) *runBackends {
	bk := &runBackends{kinds: map[plan.Phase]backends.Driver{}, providers: map[string]backends.Driver{}}
	for _, b := range builtIn {
		b.open(bk, run)
	}
	return bk
}

// Close releases what the run's backends hold open (libvirt
// connections). A failure to close changes nothing the run did, so the
// caller reports it and keeps the run's exit code.
func (bk *runBackends) Close() error {
	var errs []error
	for _, c := range bk.closers {
		errs = append(errs, c())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing the backends after the run: %w", err)
	}
	return nil
}

// discover returns what finds, for a graph, the steps of every
// backend's resources that a tenant no longer declares. Listing them
// only reads, so once ctx ends (the first Ctrl-C) it is not waited for:
// a host that stopped answering is left behind (closing the backends
// does not wait long for it), and nothing undeclared is added (not
// knowing is not wanting). reading names the listing while it runs, for
// the interrupt's message; nil names nothing.
func (bk *runBackends) discover(ctx context.Context, reading func(what string) (done func())) discoverFunc {
	return func(g *graph.Graph) ([]*graph.Step, error) {
		if len(bk.discoverers) == 0 {
			return nil, nil
		}
		if reading != nil {
			defer reading(listingUndeclared)()
		}
		type found struct {
			steps []*graph.Step
			err   error
		}
		done := make(chan found, 1)
		go func() {
			var out []*graph.Step
			var errs []error
			for _, d := range bk.discoverers {
				steps, err := d.Discover(ctx, g)
				out = append(out, steps...)
				if err != nil {
					errs = append(errs, err)
				}
			}
			done <- found{out, errors.Join(errs...)}
		}()
		select {
		case f := <-done:
			return f.steps, f.err
		case <-ctx.Done():
			return nil, fmt.Errorf("listing %s was interrupted: %w", listingUndeclared, context.Cause(ctx))
		}
	}
}

// markReaders are the DNS backends that can list a provider's zones
// and read the owner markers in one, by provider kind (site leftovers).
func (bk *runBackends) markReaders() map[string]backends.MarkReader {
	out := map[string]backends.MarkReader{}
	for kind, d := range bk.providers {
		if r, ok := d.(backends.MarkReader); ok {
			out[kind] = r
		}
	}
	return out
}

// forgetDiscovered drops what discover read, so that the steps observe
// afresh: apply lists before it takes its locks, and observes under
// them.
func (bk *runBackends) forgetDiscovered() {
	for _, d := range bk.discoverers {
		d.ForgetObserved()
	}
}

// listingUndeclared names discover's work in messages.
const listingUndeclared = "what the tenants no longer declare on their hosts"

// driverFor picks the backend that converges step.
func (bk *runBackends) driverFor(step *graph.Step) (backends.Driver, error) {
	if step.Phase == plan.PhaseDNS {
		kind := step.Zone.Provider.Kind()
		if d, ok := bk.providers[kind]; ok {
			if lease.HasLeases(step.Zone) {
				return &lease.Driver{Inner: d, Leases: bk.leases, Timeout: bk.leaseTimeout, Progress: bk.leaseProgress}, nil
			}
			return d, nil
		}
		return nil, fmt.Errorf("step %s: this build of site has no %s backend", step.ID, kind)
	}
	if d, ok := bk.kinds[step.Phase]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("step %s: this build of site has no backend for %s steps", step.ID, step.Phase)
}

// closeBackends closes the run's backends when a command ends. What
// fails to close changed nothing the run did, so it is reported on
// stderr and does not change the exit code.
func closeBackends(bk *runBackends, stderr io.Writer) {
	closed := make(chan error, 1)
	go func() { closed <- bk.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			fmt.Fprintln(stderr, "site:", err)
		}
	case <-time.After(closeTimeout):
		// A connection whose server stopped answering (an observation
		// left behind by an interrupt holds it) would keep the run from
		// ending; the process ends and the kernel closes it.
		fmt.Fprintf(stderr, "site: closing the connections did not finish within %s (a server that stopped answering?); exiting without waiting longer\n", closeTimeout)
	}
}

// closeTimeout bounds closing the backends' connections at the end of a
// run.
const closeTimeout = 3 * time.Second
