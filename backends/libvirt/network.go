package libvirt

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// netDriver converges graph.KindNetwork steps.
type netDriver struct{ d *Driver }

type netOpKind int

const (
	netDefine netOpKind = iota
	netHostDelete
	netHostAdd
	netStart
	netAutostart
	netDestroy
)

type netOp struct {
	Kind netOpKind
	Gate plan.Gate
	Name string
	XML  string
	Bool bool
	// ConfigToo makes a DHCP host update change the persistent
	// definition as well as the live one (not when a define wrote it).
	ConfigToo bool
}

func (o netOp) gate() plan.Gate { return o.Gate }

type netDetail struct {
	host string
	ops  []netOp
}

// Plan observes the network's host (once per run) and plans define,
// start and autostart, and the destroy of the tenant's networks the spec
// no longer declares.
func (n netDriver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	sp, err := n.plan(ctx, step, run)
	return sp, explain(err)
}

func (n netDriver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	nw := step.Network
	if nw == nil {
		return nil, fmt.Errorf("step %s: not a network step", step.ID)
	}
	h, err := n.d.observe(nw.Host)
	if err != nil {
		return nil, err
	}
	sp := &backends.StepPlan{Step: step}
	det := &netDetail{host: nw.Host}
	var seen []string
	change := func(key string, a plan.Action, imp plan.Impact, reason string, before, after map[string]any, gates ...plan.Gate) {
		sp.Changes = append(sp.Changes, plan.Change{Key: key, Step: step.ID, Phase: step.Phase, Tenant: nw.Tenant,
			Action: a, Impact: imp, Gates: gates, Reason: reason, Before: before, After: after})
	}
	o := h.networks[nw.Name]
	own := &owner{Tenant: nw.Tenant}
	hosts, err := dhcpHosts(step.TenantSpec, nw)
	if err != nil {
		return nil, err
	}
	switch {
	case o == nil:
		def := &libvirtxml.Network{Name: nw.Name}
		if err := applyNetwork(def, nw, own, "", hosts); err != nil {
			return nil, err
		}
		x, err := def.Marshal()
		if err != nil {
			return nil, fmt.Errorf("network %s: %w", nw.Name, err)
		}
		after := map[string]any{"network": netShapeOf(def, own), "autostart": nw.Autostart, "active": true}
		if len(hosts) > 0 {
			after["dhcp hosts"] = hostLines(hosts)
		}
		change(step.ID, plan.ActionCreate, plan.ImpactNone, "new NAT network", nil, after)
		det.ops = append(det.ops, netOp{Kind: netDefine, Name: nw.Name, XML: x}, netOp{Kind: netStart, Name: nw.Name})
		if nw.Autostart {
			det.ops = append(det.ops, netOp{Kind: netAutostart, Name: nw.Name, Bool: true})
		}
		seen = append(seen, nw.Name, "absent")
	case o.Owner == nil:
		return nil, fmt.Errorf("network %s on %s exists but carries no site owner element, so site will not change it; to adopt it for tenant %s add <%s:owner xmlns:%s=%q tenant=%q/> to its <metadata> (virsh -c %s net-edit %s)",
			nw.Name, nw.Host, nw.Tenant, ownerPrefix, ownerPrefix, OwnerNS, nw.Tenant, nw.Host, nw.Name)
	case o.Owner.Tenant != nw.Tenant:
		return nil, fmt.Errorf("network %s on %s belongs to tenant %q, not %q: rename one of them", nw.Name, nw.Host, o.Owner.Tenant, nw.Tenant)
	default:
		seen = append(seen, nw.Name, o.XML, strconv.FormatBool(o.Active), strconv.FormatBool(o.Autostart))
		def := &libvirtxml.Network{}
		if err := def.Unmarshal(o.XML); err != nil {
			return nil, fmt.Errorf("network %s: %w", nw.Name, err)
		}
		before, curHosts := netShapeOf(def, o.Owner), hostLines(hostsOf(def))
		if err := applyNetwork(def, nw, own, o.Others, hosts); err != nil {
			return nil, err
		}
		after, nextHosts := netShapeOf(def, own), hostLines(hosts)
		hostsDiffer := !slices.Equal(curHosts, nextHosts)
		define := before != after || !o.Persistent || (hostsDiffer && !o.Active)
		if define {
			x, err := def.Marshal()
			if err != nil {
				return nil, fmt.Errorf("network %s: %w", nw.Name, err)
			}
			if before != after || !o.Persistent {
				reason := "network definition"
				imp := plan.ImpactNone
				if o.Active {
					reason = "written to the persistent definition; takes effect when the network is next restarted (site never restarts a network)"
					imp = plan.ImpactNextBoot
				}
				change(step.ID, plan.ActionUpdate, imp, reason, map[string]any{"network": before}, map[string]any{"network": after})
			}
			det.ops = append(det.ops, netOp{Kind: netDefine, Name: nw.Name, XML: x})
		}
		if hostsDiffer {
			// DHCP host entries change live (virNetworkUpdate) on an
			// active network; an inactive one gets them with its define.
			imp, reason := plan.ImpactNone, "DHCP host entries (fixed addresses of the tenant's VMs), used when the network starts"
			if o.Active {
				imp, reason = plan.ImpactLive, "DHCP host entries (fixed addresses of the tenant's VMs), updated live with virNetworkUpdate"
			}
			change(step.ID, plan.ActionUpdate, imp, reason, map[string]any{"dhcp hosts": curHosts}, map[string]any{"dhcp hosts": nextHosts})
			if o.Active {
				for _, hx := range hostXMLs(hostsOf(mustNet(o.XML)), hosts) {
					det.ops = append(det.ops, netOp{Kind: netHostDelete, Name: nw.Name, XML: hx, ConfigToo: !define})
				}
				for _, hx := range hostXMLs(hosts, hostsOf(mustNet(o.XML))) {
					det.ops = append(det.ops, netOp{Kind: netHostAdd, Name: nw.Name, XML: hx, ConfigToo: !define})
				}
			}
		}
		if !o.Active {
			change(step.ID, plan.ActionUpdate, plan.ImpactLive, "start the network", map[string]any{"active": false}, map[string]any{"active": true})
			det.ops = append(det.ops, netOp{Kind: netStart, Name: nw.Name})
		}
		if o.Autostart != nw.Autostart {
			change(step.ID, plan.ActionUpdate, plan.ImpactLive, "autostart (host side only)", map[string]any{"autostart": o.Autostart}, map[string]any{"autostart": nw.Autostart})
			det.ops = append(det.ops, netOp{Kind: netAutostart, Name: nw.Name, Bool: nw.Autostart})
		}
	}
	orphans, refused := n.planOrphans(h, step, &seen)
	for _, rf := range refused {
		// Not an error: that would block this step and the VM steps
		// behind it, including the very change that frees the network.
		change(graph.NetworkStepID(nw.Host, rf.name), plan.ActionDelete, plan.ImpactNextBoot,
			"refused for now: "+rf.why+"; a later run destroys it (with "+string(plan.GateNetDestroy)+") once nothing uses it", map[string]any{"in use": rf.users}, nil)
	}
	for _, name := range orphans {
		change(graph.NetworkStepID(nw.Host, name), plan.ActionDelete, plan.ImpactDestroy,
			"the spec no longer declares this network; it has no attached interfaces and no DHCP leases", map[string]any{"active": h.networks[name].Active}, nil, plan.GateNetDestroy)
		det.ops = append(det.ops, netOp{Kind: netDestroy, Gate: plan.GateNetDestroy, Name: name})
	}
	sp.Fingerprint = fingerprint(seen...)
	sp.Detail = det
	return sp, nil
}

// refusal is an undeclared network site will not destroy yet.
type refusal struct {
	name  string
	why   string
	users []string // domains and leases that use it
}

// planOrphans lets the tenant's first network step on a host find the
// tenant's marked networks there that the spec no longer declares: those
// it may destroy, and those it refuses to because they have attached
// interfaces, DHCP leases, or leases it cannot read.
func (n netDriver) planOrphans(h *hostObs, step *graph.Step, seen *[]string) ([]string, []refusal) {
	t, nw := step.TenantSpec, step.Network
	if t == nil {
		return nil, nil
	}
	declared := map[string]bool{}
	first := ""
	for _, other := range t.Networks {
		if other.Host != nw.Host {
			continue
		}
		declared[other.Name] = true
		if first == "" || other.Name < first {
			first = other.Name
		}
	}
	if first != nw.Name {
		return nil, nil
	}
	var out []string
	var refused []refusal
	names := make([]string, 0, len(h.networks))
	for name := range h.networks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := h.networks[name]
		if declared[name] || o.Owner == nil || o.Owner.Tenant != nw.Tenant {
			continue
		}
		*seen = append(*seen, "orphan", name, o.XML, strconv.FormatBool(o.Active))
		if users := h.networkUsers(name); len(users) > 0 {
			refused = append(refused, refusal{name, fmt.Sprintf("%d domains have interfaces on it in their running or persistent definitions", len(users)), users})
			continue
		}
		leases, err := n.leases(h, o)
		if err != nil {
			refused = append(refused, refusal{name, fmt.Sprintf("site cannot confirm it has no DHCP leases (%v); stop it with virsh net-destroy %s if it is unused", err, name), nil})
			continue
		}
		if len(leases) > 0 {
			refused = append(refused, refusal{name, fmt.Sprintf("it has %d DHCP leases", len(leases)), leases})
			continue
		}
		out = append(out, name)
	}
	for _, rf := range refused {
		*seen = append(*seen, "refused", rf.name, strings.Join(rf.users, ","))
	}
	return out, refused
}

// leases lists an active network's DHCP leases ("ip mac"). An inactive
// network has none; a driver that cannot report them is an error.
func (n netDriver) leases(h *hostObs, o *netObs) ([]string, error) {
	if !o.Active {
		return nil, nil
	}
	n.d.call()
	nw, err := h.conn.LookupNetworkByName(o.Name)
	if err != nil {
		return nil, err
	}
	defer nw.Free()
	n.d.call()
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
	for _, name := range h.domainNames() {
		o := h.domains[name]
		if (o.Running && uses(o.Live)) || uses(o.Inactive) {
			out = append(out, name)
		}
	}
	return out
}

// applyNetwork writes what site manages into def: NAT forwarding, the
// gateway address (the CIDR's first host), a DHCP range over the rest,
// and the owner element. Bridge name, MAC and UUID stay libvirt's.
func applyNetwork(def *libvirtxml.Network, nw *model.Network, own *owner, others string, hosts []libvirtxml.NetworkDHCPHost) error {
	pfx, err := netip.ParsePrefix(nw.CIDR)
	if err != nil || !pfx.Addr().Is4() || pfx.Bits() > 30 {
		return fmt.Errorf("network %s: cidr %q is not an IPv4 prefix of /30 or shorter", nw.Name, nw.CIDR)
	}
	pfx = pfx.Masked()
	gw := pfx.Addr().Next()
	last := gw
	for a := gw.Next(); pfx.Contains(a.Next()); a = a.Next() {
		last = a // stops before the broadcast address
	}
	def.Forward = &libvirtxml.NetworkForward{Mode: "nat"}
	def.IPs = []libvirtxml.NetworkIP{{Address: gw.String(), Prefix: uint(pfx.Bits()),
		DHCP: &libvirtxml.NetworkDHCP{Ranges: []libvirtxml.NetworkDHCPRange{{Start: gw.Next().String(), End: last.String()}}, Hosts: hosts}}}
	def.Metadata = &libvirtxml.NetworkMetadata{XML: own.metadataXML(others)}
	return nil
}

// netShapeOf projects a network definition on what site manages.
func netShapeOf(def *libvirtxml.Network, o *owner) string {
	mode := "isolated"
	if def.Forward != nil {
		mode = def.Forward.Mode
	}
	var ips []string
	for _, ip := range def.IPs {
		bits := ip.Prefix
		if ip.Netmask != "" {
			if m, err := netip.ParseAddr(ip.Netmask); err == nil {
				b := m.As4()
				bits = 0
				for _, x := range b {
					for ; x != 0; x <<= 1 {
						bits++
					}
				}
			}
		}
		s := fmt.Sprintf("%s/%d", ip.Address, bits)
		if ip.DHCP != nil {
			for _, r := range ip.DHCP.Ranges {
				s += " dhcp " + r.Start + "-" + r.End
			}
		}
		ips = append(ips, s)
	}
	return fmt.Sprintf("forward=%s ip=%s owner=%s", mode, strings.Join(ips, ";"), o.String())
}

// Apply defines, starts, sets autostart, and destroys what Plan found.
func (n netDriver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	res, err := n.apply(ctx, sp, run)
	return res, explain(err)
}

func (n netDriver) apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	det, ok := sp.Detail.(*netDetail)
	if !ok {
		return nil, fmt.Errorf("step %s: plan detail is %T, not a network plan from this process", sp.Step.ID, sp.Detail)
	}
	if err := refuseUnacked(sp.Step.ID, det.ops, run); err != nil {
		return nil, err
	}
	defer n.d.forget(det.host)
	c, err := n.d.conn(det.host)
	if err != nil {
		return nil, err
	}
	res := &backends.StepResult{}
	start := n.d.Calls()
	defer func() { res.Requests = int(n.d.Calls() - start) }()
	for _, o := range det.ops {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if c, err = n.doRetrying(c, det.host, o, n.do); err != nil {
			return res, err
		}
	}
	return res, nil
}

// doRetrying runs op with try (n.do outside tests): once, or, for the
// ops safe to repeat, retried on transient errors with a live connection
// (conn reopens a dead one) before each retry. It returns the connection
// later ops should use.
func (n netDriver) doRetrying(c *libvirt.Connect, host string, o netOp, try func(*libvirt.Connect, string, netOp) error) (*libvirt.Connect, error) {
	if !netRetryable(o.Kind) {
		return c, try(c, host, o)
	}
	tried := false
	err := n.d.retry(func() error {
		if tried {
			fresh, err := n.d.conn(host)
			if err != nil {
				return err
			}
			c = fresh
		}
		tried = true
		return try(c, host, o)
	})
	return c, err
}

// netRetryable reports whether repeating a network op after a failure
// leaves the same result as doing it once: defining the same XML and
// setting autostart to a value do. Starting, destroying and DHCP host
// updates (an add repeated is a duplicate entry) are tried once.
func netRetryable(k netOpKind) bool {
	return k == netDefine || k == netAutostart
}

func (n netDriver) do(c *libvirt.Connect, host string, o netOp) error {
	if o.Kind == netDefine {
		n.d.call()
		nw, err := c.NetworkDefineXML(o.XML)
		if err != nil {
			return fmt.Errorf("define network %s on %s: %w", o.Name, host, err)
		}
		return nw.Free()
	}
	n.d.call()
	nw, err := c.LookupNetworkByName(o.Name)
	if err != nil {
		return fmt.Errorf("look up network %s on %s: %w", o.Name, host, err)
	}
	defer nw.Free()
	n.d.call()
	switch o.Kind {
	case netStart:
		err = nw.Create()
	case netAutostart:
		err = nw.SetAutostart(o.Bool)
	case netHostAdd, netHostDelete:
		cmd := libvirt.NETWORK_UPDATE_COMMAND_ADD_LAST
		if o.Kind == netHostDelete {
			cmd = libvirt.NETWORK_UPDATE_COMMAND_DELETE
		}
		flags := libvirt.NETWORK_UPDATE_AFFECT_LIVE
		if o.ConfigToo {
			flags |= libvirt.NETWORK_UPDATE_AFFECT_CONFIG
		}
		err = nw.Update(cmd, libvirt.NETWORK_SECTION_IP_DHCP_HOST, -1, o.XML, flags)
	case netDestroy:
		if active, aerr := nw.IsActive(); aerr == nil && active {
			n.d.call()
			if err = nw.Destroy(); err != nil {
				break
			}
		}
		n.d.call()
		err = nw.Undefine()
	}
	if err != nil {
		return fmt.Errorf("network %s on %s: %w", o.Name, host, err)
	}
	return nil
}

// dhcpHosts lists the DHCP host entries network nw needs: one per NIC of
// the tenant's VMs on nw's host that asks for a fixed address on nw.
func dhcpHosts(t *model.Tenant, nw *model.Network) ([]libvirtxml.NetworkDHCPHost, error) {
	if t == nil {
		return nil, nil
	}
	pfx, err := netip.ParsePrefix(nw.CIDR)
	if err != nil {
		return nil, fmt.Errorf("network %s: cidr %q: %w", nw.Name, nw.CIDR, err)
	}
	pfx = pfx.Masked()
	var out []libvirtxml.NetworkDHCPHost
	byIP := map[string]string{}
	for _, vm := range t.VMs {
		if vm.Host != nw.Host {
			continue
		}
		for i, nic := range vm.NICs {
			if nic.Network != nw.Name || nic.Address == "" {
				continue
			}
			ip, err := netip.ParseAddr(nic.Address)
			if err != nil || !pfx.Contains(ip) || ip == pfx.Addr() || ip == pfx.Addr().Next() || !pfx.Contains(ip.Next()) {
				return nil, fmt.Errorf("VM %s: address %q is not a guest address of network %s (%s; the first address is the gateway)", vm.Name, nic.Address, nw.Name, nw.CIDR)
			}
			if other, dup := byIP[ip.String()]; dup {
				return nil, fmt.Errorf("VMs %s and %s both ask for %s on network %s", other, vm.Name, ip, nw.Name)
			}
			byIP[ip.String()] = vm.Name
			out = append(out, libvirtxml.NetworkDHCPHost{MAC: nicMAC(vm, i), Name: vm.Name, IP: ip.String()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := netip.ParseAddr(out[i].IP)
		b, _ := netip.ParseAddr(out[j].IP)
		return a.Less(b)
	})
	return out, nil
}

// hostsOf returns the DHCP host entries of a network's first address.
func hostsOf(def *libvirtxml.Network) []libvirtxml.NetworkDHCPHost {
	if def == nil || len(def.IPs) == 0 || def.IPs[0].DHCP == nil {
		return nil
	}
	return def.IPs[0].DHCP.Hosts
}

func hostLine(h libvirtxml.NetworkDHCPHost) string {
	return "mac=" + strings.ToLower(h.MAC) + " ip=" + h.IP + " name=" + h.Name
}

func hostLines(hs []libvirtxml.NetworkDHCPHost) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, hostLine(h))
	}
	return out
}

// hostXMLs renders the entries of a that b lacks, for virNetworkUpdate.
func hostXMLs(a, b []libvirtxml.NetworkDHCPHost) []string {
	in := map[string]bool{}
	for _, h := range b {
		in[hostLine(h)] = true
	}
	var out []string
	for _, h := range a {
		if in[hostLine(h)] {
			continue
		}
		x, err := xml.Marshal(libvirtxml.NetworkDHCPHost{MAC: strings.ToLower(h.MAC), Name: h.Name, IP: h.IP})
		if err != nil {
			panic(fmt.Sprintf("marshal a DHCP host: %v", err)) // a struct of strings
		}
		out = append(out, string(x))
	}
	return out
}

// mustNet parses network XML that observeNetwork already parsed once.
func mustNet(x string) *libvirtxml.Network {
	var def libvirtxml.Network
	if err := def.Unmarshal(x); err != nil {
		panic(fmt.Sprintf("network XML parsed before fails now: %v", err))
	}
	return &def
}
