//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/backends/libvirt/hosts"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
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

// hostOps plans the DHCP host updates that turn the running network's
// entries live into want, and when config is set the persistent
// definition's entries persistent too. An update both need is one call
// (live and config): on a network whose running and persistent
// definitions are still one (libvirt's test driver), a live update
// changes both, and a second call for the config would fail. running
// says whether to update the running network at all.
func (p *netPlanner) hostOps(live []libvirtxml.NetworkDHCPHost, running bool, persistent, want []libvirtxml.NetworkDHCPHost, config bool) {
	type key struct {
		kind netOpKind
		xml  string
	}
	var order []key
	ops := map[key]*netOp{}
	put := func(kind netOpKind, xmls []string, isLive bool) {
		for _, x := range xmls {
			k := key{kind, x}
			o := ops[k]
			if o == nil {
				o = &netOp{Kind: kind, Name: p.nw.Name, XML: x}
				ops[k] = o
				order = append(order, k)
			}
			if isLive {
				o.Live = true
			} else {
				o.Config = true
			}
		}
	}
	if running {
		put(netHostDelete, network.HostXMLs(live, want), true)
	}
	if config {
		put(netHostDelete, network.HostXMLs(persistent, want), false)
	}
	if running {
		put(netHostAdd, network.HostXMLs(want, live), true)
	}
	if config {
		put(netHostAdd, network.HostXMLs(want, persistent), false)
	}
	for _, k := range order {
		p.add(*ops[k])
	}
}

// planUndeclared plans the destroy of a network its tenant no longer
// declares (found by Discover), behind GATE-NET-DESTROY, or shows it
// refused while something uses it. A network gone meanwhile, or no
// longer the tenant's, plans nothing.
func (n netDriver) planUndeclared(step *graph.Step) (*backends.StepPlan, *netDetail, error) {
	u := step.Undeclared
	h, err := n.d.observe(u.Host)
	if err != nil {
		return nil, nil, err
	}
	det := &netDetail{host: u.Host}
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
		det.ops = append(det.ops, netOp{Kind: netDestroy, Gate: plan.GateNetDestroy, Name: u.Name})
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
func (n netDriver) inUse(h *hostObs, o *netObs) (refusal, bool) {
	if users := h.networkUsers(o.Name); len(users) > 0 {
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
		named := firstFew(leases, maxLeasesNamed)
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
func (n netDriver) leases(h *hostObs, o *netObs) ([]string, error) {
	if !o.Active || network.ModeOf(network.Must(o.XML)) == model.NetBridge {
		// A bridge-mode network has no dnsmasq of libvirt's (the host
		// bridge's addresses are the LAN's), so no lease to hold it.
		return nil, nil
	}
	n.d.Call()
	nw, err := h.Conn.LookupNetworkByName(o.Name)
	if err != nil {
		return nil, err
	}
	defer nw.Free()
	n.d.Call()
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

// networkUsers lists the domains with an interface on network in their
// live (while running) or persistent definition.
func (h *hostObs) networkUsers(network string) []string {
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

// checkOverlap refuses a network whose cidr overlaps another network on
// the host that is not the tenant's own: vet compares only the networks
// the specs declare, and the host has others (libvirt's default,
// virbr0 on 192.168.122.0/24; the operator's; another tenant's whose
// file is not loaded, or that it dropped), whose addresses the tenant's
// guests would take and whose routes they would then answer for. A
// network of the tenant's own is its spec's (vet checks it, and one it
// dropped is removed in the same run). Both the persistent and the
// running definition count.
func (h *hostObs) checkOverlap(nw *model.Network) error {
	if nw.CIDR == "" {
		return nil
	}
	want, err := netip.ParsePrefix(nw.CIDR)
	if err != nil {
		return nil // vet refuses it; the plan says so where it builds the definition
	}
	names := make([]string, 0, len(h.Networks))
	for name := range h.Networks {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		o := h.Networks[name]
		if name == nw.Name || o.Owner != nil && o.Owner.Tenant == nw.Tenant {
			continue
		}
		for _, def := range []*libvirtxml.Network{o.Live, o.Def} {
			if def == nil {
				continue
			}
			for _, ip := range def.IPs {
				have, err := netip.ParsePrefix(network.IPPrefix(ip))
				if err != nil || !have.Overlaps(want) {
					continue
				}
				where := ""
				if def.Bridge != nil && def.Bridge.Name != "" {
					where = ", bridge " + def.Bridge.Name
				}
				whose := "which carries no site owner element (libvirt's default network, or the operator's own)"
				if o.Owner != nil {
					whose = fmt.Sprintf("which is tenant %q's", o.Owner.Tenant)
				}
				return fmt.Errorf("network %s on %s: cidr %s overlaps network %s on the host (%s%s), %s, so its guests would take addresses that network routes; pick a prefix no network on the host uses",
					nw.Name, nw.Host, nw.CIDR, name, have, where, whose)
			}
		}
	}
	return nil
}
