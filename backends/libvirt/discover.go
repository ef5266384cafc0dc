//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"errors"
	"sort"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// What a tenant no longer declares is found by its owner element: a
// tenant that has a VM (network) step on a host gets a step of its own,
// graph.UndeclaredVM (UndeclaredNetwork), for every domain (network) there
// marked with its name that it does not declare. A tenant that declares
// nothing of the kind on a host is not looked at there.

// sweep is one tenant's look at one host for one kind of resource.
type sweep struct {
	t        *model.Tenant
	host     string
	phase    plan.Phase
	declared map[string]bool
}

// Discover lists, for every tenant with a chosen VM or network step in
// g, the domains and networks on that step's host that carry the
// tenant's owner element and that the tenant does not declare, and
// returns a step for each. What it reads is each host's observation,
// kept for the steps' plans of the run (ForgetObserved drops it).
func (d *Driver) Discover(ctx context.Context, g *graph.Graph) ([]*graph.Step, error) {
	sweeps, hosts := sweepsOf(g)
	if len(sweeps) == 0 {
		return nil, nil
	}
	if d.OptsErr != nil {
		return nil, d.OptsErr
	}
	var out []*graph.Step
	var errs []error
	for _, host := range hosts {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		// The host's observation, which the run's steps then share: a
		// diff reads the host once; apply drops it (ForgetObserved) to
		// observe again under its lock.
		h, err := d.observe(host)
		if err != nil {
			errs = append(errs, conn.Explain(err))
			continue
		}
		out = append(out, undeclaredOn(h, host, sweeps)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(errs...)
}

// sweepsOf returns a sweep per tenant, host and phase of g's chosen VM
// and network steps, by key, with what the tenant declares there, and
// the hosts they are on, sorted.
func sweepsOf(g *graph.Graph) (map[string]*sweep, []string) {
	sweeps := map[string]*sweep{}
	var hosts []string
	seen := map[string]bool{}
	for _, s := range g.Steps {
		if s.Prerequisite || s.TenantSpec == nil {
			continue
		}
		var host string
		switch {
		case s.VM != nil:
			host = s.VM.Host
		case s.Network != nil:
			host = s.Network.Host
		default:
			continue
		}
		key := s.Tenant + "\x00" + host + "\x00" + string(s.Phase)
		if sweeps[key] == nil {
			sw := &sweep{t: s.TenantSpec, host: host, phase: s.Phase, declared: map[string]bool{}}
			if s.Phase == plan.PhaseVM {
				for _, vm := range s.TenantSpec.VMs {
					if vm.Host == host {
						sw.declared[vm.Name] = true
					}
				}
			} else {
				for _, n := range s.TenantSpec.Networks {
					if n.Host == host {
						sw.declared[n.Name] = true
					}
				}
			}
			sweeps[key] = sw
		}
		if !seen[host] {
			seen[host] = true
			hosts = append(hosts, host)
		}
	}
	sort.Strings(hosts)
	return sweeps, hosts
}

// undeclaredOn returns a step for every domain or network on host,
// observed as h, that a sweep's tenant owns and does not declare.
func undeclaredOn(h *storage.View, host string, sweeps map[string]*sweep) []*graph.Step {
	doms, nets := map[string]string{}, map[string]string{} // name -> owning tenant
	for name, o := range h.Domains {
		if o.Owner != nil {
			doms[name] = o.Owner.Tenant
		}
	}
	for name, o := range h.Networks {
		if o.Owner != nil {
			nets[name] = o.Owner.Tenant
		}
	}
	var out []*graph.Step
	for _, sw := range sweeps {
		if sw.host != host {
			continue
		}
		owners, step := doms, graph.UndeclaredVM
		if sw.phase == plan.PhaseNetwork {
			owners, step = nets, graph.UndeclaredNetwork
		}
		for name, tenant := range owners {
			if tenant == sw.t.Name && !sw.declared[name] {
				out = append(out, step(sw.t, host, name))
			}
		}
	}
	return out
}

// ForgetObserved drops what Discover observed, so that the steps
// observe every host afresh (apply, under the tenants' locks).
func (d *Driver) ForgetObserved() {
	d.ForgetAll()
}
