package providers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lease"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// Set is the drivers one run uses. Close it when the run ends.
type Set struct {
	Kinds     map[plan.Phase]backends.Driver // secrets, network, storage, vm
	Providers map[string]backends.Driver     // DNS zones by provider kind
	Closers   []func() error
	// Discoverers find the steps only observing names (see Discover).
	Discoverers []backends.Discoverer
	// Owners lists the owner elements on a host, for site leftovers;
	// nil without a libvirt backend.
	Owners backends.OwnerLister
	// Leases reads the DHCP leases of the VMs that publish address
	// "lease" (nil without a libvirt backend); apply waits for them up
	// to LeaseTimeout and tells LeaseProgress.
	Leases        lease.Reader
	LeaseTimeout  time.Duration
	LeaseProgress func(string)
	// absent says why a kind of step, or a lease, has no backend in this
	// build and how to get one (see Check).
	absent error
}

// Close releases what the run's backends hold open (libvirt
// connections). A failure to close changes nothing the run did, so the
// caller reports it and keeps the run's exit code.
func (s *Set) Close() error {
	var errs []error
	for _, c := range s.Closers {
		errs = append(errs, c())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing the backends after the run: %w", err)
	}
	return nil
}

// ListingUndeclared names Discover's work in messages.
const ListingUndeclared = "what the tenants no longer declare on their hosts"

// Discover returns what finds, for a graph, the steps of every
// backend's resources that a tenant no longer declares. Listing them
// only reads, so once ctx ends (the first Ctrl-C) it is not waited for:
// a host that stopped answering is left behind (closing the backends
// does not wait long for it), and nothing undeclared is added (not
// knowing is not wanting). reading names the listing while it runs, for
// the interrupt's message; nil names nothing.
func (s *Set) Discover(ctx context.Context, reading func(what string) (done func())) func(*graph.Graph) ([]*graph.Step, error) {
	return func(g *graph.Graph) ([]*graph.Step, error) {
		if len(s.Discoverers) == 0 {
			return nil, nil
		}
		if reading != nil {
			defer reading(ListingUndeclared)()
		}
		type found struct {
			steps []*graph.Step
			err   error
		}
		done := make(chan found, 1)
		go func() {
			var out []*graph.Step
			var errs []error
			for _, d := range s.Discoverers {
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
			return nil, fmt.Errorf("listing %s was interrupted: %w", ListingUndeclared, context.Cause(ctx))
		}
	}
}

// MarkReaders are the DNS backends that can list a provider's zones
// and read the owner markers in one, by provider kind (site leftovers).
func (s *Set) MarkReaders() map[string]backends.MarkReader {
	out := map[string]backends.MarkReader{}
	for kind, d := range s.Providers {
		if r, ok := d.(backends.MarkReader); ok {
			out[kind] = r
		}
	}
	return out
}

// ForgetDiscovered drops what Discover read, so that the steps observe
// afresh: apply lists before it takes its locks, and observes under
// them.
func (s *Set) ForgetDiscovered() {
	for _, d := range s.Discoverers {
		d.ForgetObserved()
	}
}

// DriverFor picks the backend that converges step.
func (s *Set) DriverFor(step *graph.Step) (backends.Driver, error) {
	if step.Phase == plan.PhaseDNS {
		kind := step.Zone.Provider.Kind()
		if d, ok := s.Providers[kind]; ok {
			if lease.HasLeases(step.Zone) {
				return &lease.Driver{Inner: d, Leases: s.Leases, Timeout: s.LeaseTimeout, Progress: s.LeaseProgress}, nil
			}
			return d, nil
		}
		return nil, fmt.Errorf("step %s: this build of site has no %s backend", step.ID, kind)
	}
	if d, ok := s.Kinds[step.Phase]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("step %s: this build of site has no backend for %s steps", step.ID, step.Phase)
}

// Check refuses, before anything is observed, a graph with a step this
// build has no backend for: a VM, network or storage pool, or a DNS
// record that publishes a VM's DHCP lease, in a build without libvirt.
// The error is one line: which step, why, and how to get a build that
// has the backend. A step whose phase no backend serves at all is left
// to DriverFor.
func (s *Set) Check(g *graph.Graph) error {
	if s.absent == nil {
		return nil
	}
	var first *graph.Step
	n := 0
	for _, st := range g.Steps {
		if s.lacks(st) {
			if first == nil {
				first = st
			}
			n++
		}
	}
	if first == nil {
		return nil
	}
	what := "step " + first.ID
	if first.Tenant != "" {
		what += " of tenant " + first.Tenant
	}
	if n > 1 {
		what += fmt.Sprintf(" (and %d more)", n-1)
	}
	if first.Phase == plan.PhaseDNS {
		return fmt.Errorf("%s publishes a VM's DHCP lease address, which needs libvirt: %w", what, s.absent)
	}
	return fmt.Errorf("%s needs libvirt: %w; or leave VMs, networks and storage out with --only dns", what, s.absent)
}

// lacks reports whether st needs a backend this build left out.
func (s *Set) lacks(st *graph.Step) bool {
	if st.Phase == plan.PhaseDNS {
		return s.Leases == nil && st.Zone != nil && lease.HasLeases(st.Zone)
	}
	_, ok := s.Kinds[st.Phase]
	return !ok
}

// Absent says why this build has no libvirt backend and how to get a
// build that has it; nil when it has one.
func (s *Set) Absent() error { return s.absent }
