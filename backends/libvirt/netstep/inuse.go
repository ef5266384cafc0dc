//go:build cgo && libvirt_dlopen

package netstep

import (
	"fmt"
	"strconv"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// sameRange reports whether two network definitions serve the same
// address range: the same first address and prefix.
func sameRange(a, b *libvirtxml.Network) bool {
	if a == nil || b == nil || len(a.IPs) == 0 || len(b.IPs) == 0 {
		return a != nil && b != nil && len(a.IPs) == len(b.IPs)
	}
	return network.IPPrefix(a.IPs[0]) == network.IPPrefix(b.IPs[0])
}

// planUndeclared plans the destroy of a network its tenant no longer
// declares (found by Discover), behind GATE-NET-DESTROY, or shows it
// refused while something uses it. A network gone meanwhile, or no
// longer the tenant's, plans nothing.
func (n Driver) planUndeclared(step *graph.Step) (*backends.StepPlan, *Detail, error) {
	u := step.Undeclared
	h, err := n.s.Observe(u.Host)
	if err != nil {
		return nil, nil, err
	}
	det := &Detail{Host: u.Host}
	sp := &backends.StepPlan{Step: step}
	o := h.Networks[u.Name]
	if o == nil || o.Owner == nil || o.Owner.Tenant != step.Tenant {
		sp.Fingerprint = hosts.Fingerprint("undeclared", u.Name, "gone")
		return sp, det, nil
	}
	change := plan.Change{Key: step.ID, Step: step.ID, Phase: step.Phase, Tenant: step.Tenant, Action: plan.ActionDelete}
	if rf, busy := n.inUse(h, o); busy {
		// Not an error: that would block the run, including the very
		// change that frees the network. It changes nothing here: apply
		// reports it refused.
		change.Impact = plan.ImpactRefused
		change.Reason = "refused for now: " + rf.why + "; " + rf.todo + "; the spec no longer declares this network, so a later run destroys it (with " + string(plan.GateNetDestroy) + ") once nothing uses it"
		change.Before = map[string]any{"in use": rf.users}
		sp.Fingerprint = hosts.Fingerprint("undeclared", u.Name, o.XML, strconv.FormatBool(o.Active), "refused", strings.Join(rf.users, ","))
	} else {
		change.Impact = plan.ImpactDestroy
		change.Reason = "the spec no longer declares this network; it has no attached interfaces and no DHCP leases"
		change.Before = map[string]any{"active": o.Active}
		change.Gates = []plan.Gate{plan.GateNetDestroy}
		det.Ops = append(det.Ops, Op{Kind: OpDestroy, Gate: plan.GateNetDestroy, Name: u.Name})
		sp.Fingerprint = hosts.Fingerprint("undeclared", u.Name, o.XML, strconv.FormatBool(o.Active))
	}
	sp.Changes = append(sp.Changes, change)
	return sp, det, nil
}

// refusal is a network site will not destroy (or recreate) yet.
type refusal struct {
	why   string   // "in use: 1 DHCP lease (10.0.0.5 52:54:00:…)"
	todo  string   // what frees it
	users []string // domains and leases that use it
}

// inUse says why network o must not be destroyed, if it must not: a
// domain has an interface on it, it has DHCP leases, or its leases
// cannot be read.
func (n Driver) inUse(h *hosts.Obs, o *hosts.Network) (refusal, bool) {
	if users := Users(h, o.Name); len(users) > 0 {
		why := "in use: 1 domain has an interface on it in its running or persistent definition"
		if len(users) > 1 {
			why = fmt.Sprintf("in use: %d domains have interfaces on it in their running or persistent definitions", len(users))
		}
		return refusal{why + " (" + strings.Join(users, ", ") + ")",
			"take the interfaces out of the spec (a running guest keeps its interface until it shuts down) or the domains", users}, true
	}
	leases, err := n.leases(h, o)
	if err != nil {
		return refusal{fmt.Sprintf("site cannot confirm it has no DHCP leases (%v)", err),
			fmt.Sprintf("stop it with virsh net-destroy %s if it is unused", o.Name), nil}, true
	}
	if len(leases) > 0 {
		why := "in use: 1 DHCP lease"
		if len(leases) > 1 {
			why = fmt.Sprintf("in use: %d DHCP leases", len(leases))
		}
		named := firstFew(leases, MaxLeasesNamed)
		return refusal{why + " (" + strings.Join(named, ", ") + ")",
			fmt.Sprintf("a lease ends when its client releases it or it expires (virsh net-dhcp-leases %s lists them)", o.Name), named}, true
	}
	return refusal{}, false
}

// firstFew is the first n of items, and how many more there are.
func firstFew(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

// leases lists an active network's DHCP leases ("ip mac"). An inactive
// network has none; a driver that cannot report them is an error.
func (n Driver) leases(h *hosts.Obs, o *hosts.Network) ([]string, error) {
	if !o.Active || network.ModeOf(network.Must(o.XML)) == model.NetBridge {
		// A bridge-mode network has no dnsmasq of libvirt's (the host
		// bridge's addresses are the LAN's), so no lease to hold it.
		return nil, nil
	}
	n.s.Call()
	nw, err := h.Conn.LookupNetworkByName(o.Name)
	if err != nil {
		return nil, err
	}
	defer nw.Free()
	n.s.Call()
	ls, err := nw.GetDHCPLeases()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.IPaddr+" "+l.Mac)
	}
	return out, nil
}

// Users lists the domains with an interface on network in their
// live (while running) or persistent definition.
func Users(h *hosts.Obs, network string) []string {
	var out []string
	uses := func(def *libvirtxml.Domain) bool {
		if def == nil || def.Devices == nil {
			return false
		}
		for _, i := range def.Devices.Interfaces {
			if i.Source != nil && i.Source.Network != nil && i.Source.Network.Network == network {
				return true
			}
		}
		return false
	}
	for _, name := range h.DomainNames() {
		o := h.Domains[name]
		if (o.Running && uses(o.Live)) || uses(o.Inactive) {
			out = append(out, name)
		}
	}
	return out
}
