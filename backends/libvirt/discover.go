package libvirt

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

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
// returns a step for each. It reads only names and owner elements, and
// nothing it reads is kept for the steps' plans (they observe under the
// tenant's lock).
func (d *Driver) Discover(ctx context.Context, g *graph.Graph) ([]*graph.Step, error) {
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
	if len(sweeps) == 0 {
		return nil, nil
	}
	if d.optsErr != nil {
		return nil, d.optsErr
	}
	sort.Strings(hosts)
	var out []*graph.Step
	var errs []error
	for _, host := range hosts {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		var wantDoms, wantNets bool
		for _, sw := range sweeps {
			if sw.host == host {
				wantDoms = wantDoms || sw.phase == plan.PhaseVM
				wantNets = wantNets || sw.phase == plan.PhaseNetwork
			}
		}
		var doms, nets map[string]string // name -> owning tenant
		err := d.retry(func() error {
			c, err := d.conn(host)
			if err != nil {
				return err
			}
			doms, nets, err = d.listOwners(c, host, wantDoms, wantNets)
			return err
		})
		if err != nil {
			errs = append(errs, explain(err))
			continue
		}
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
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(errs...)
}

// listOwners reads the tenant named by the owner element of every domain
// (its persistent definition, else the live one) and network on host;
// resources without one are left out.
func (d *Driver) listOwners(c *libvirt.Connect, host string, doms, nets bool) (map[string]string, map[string]string, error) {
	domOwners, netOwners := map[string]string{}, map[string]string{}
	if doms {
		d.call()
		list, err := c.ListAllDomains(0)
		if err != nil {
			return nil, nil, fmt.Errorf("list domains on %s: %w", host, err)
		}
		defer func() {
			for i := range list {
				_ = list[i].Free()
			}
		}()
		for i := range list {
			// The inactive flag gives a persistent domain's definition
			// and a transient one's live definition.
			d.call()
			x, err := list[i].GetXMLDesc(libvirt.DOMAIN_XML_INACTIVE)
			if isCode(err, libvirt.ERR_NO_DOMAIN) {
				continue // undefined while we looked
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read a domain on %s: %w", host, err)
			}
			var def libvirtxml.Domain
			if err := def.Unmarshal(x); err != nil {
				return nil, nil, fmt.Errorf("parse a domain on %s: %w", host, err)
			}
			if def.Metadata == nil {
				continue
			}
			o, _, err := parseOwner(def.Metadata.XML)
			if err != nil {
				return nil, nil, fmt.Errorf("domain %s on %s: %w", def.Name, host, err)
			}
			if o != nil {
				domOwners[def.Name] = o.Tenant
			}
		}
	}
	if nets {
		d.call()
		list, err := c.ListAllNetworks(0)
		if err != nil {
			return nil, nil, fmt.Errorf("list networks on %s: %w", host, err)
		}
		defer func() {
			for i := range list {
				_ = list[i].Free()
			}
		}()
		for i := range list {
			d.call()
			x, err := list[i].GetXMLDesc(libvirt.NETWORK_XML_INACTIVE)
			if isCode(err, libvirt.ERR_INVALID_ARG) { // the test driver: one definition
				d.call()
				x, err = list[i].GetXMLDesc(0)
			}
			if isCode(err, libvirt.ERR_NO_NETWORK) {
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read a network on %s: %w", host, err)
			}
			var def libvirtxml.Network
			if err := def.Unmarshal(x); err != nil {
				return nil, nil, fmt.Errorf("parse a network on %s: %w", host, err)
			}
			if def.Metadata == nil {
				continue
			}
			o, _, err := parseOwner(def.Metadata.XML)
			if err != nil {
				return nil, nil, fmt.Errorf("network %s on %s: %w", def.Name, host, err)
			}
			if o != nil {
				netOwners[def.Name] = o.Tenant
			}
		}
	}
	return domOwners, netOwners, nil
}
