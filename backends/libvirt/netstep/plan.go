//go:build cgo && libvirt_dlopen

package netstep

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func (n Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, *Detail, error) {
	if step.Undeclared != nil {
		return n.planUndeclared(step)
	}
	nw := step.Network
	if nw == nil {
		return nil, nil, fmt.Errorf("step %s: not a network step", step.ID)
	}
	h, err := n.s.Observe(nw.Host)
	if err != nil {
		return nil, nil, err
	}
	p := &planner{n: n, h: h, nw: nw, step: step, sp: &backends.StepPlan{Step: step}, det: &Detail{Host: nw.Host}}
	dhcpHosts, err := network.DHCPHosts(step.TenantSpec, nw)
	if err != nil {
		return nil, nil, err
	}
	if nw.ModeOrNAT() == model.NetBridge {
		note, err := checkHostBridge(h, nw)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			p.sp.Notes = append(p.sp.Notes, note)
		}
	}
	if err := checkOverlap(h, nw); err != nil {
		return nil, nil, err
	}
	o := h.Networks[nw.Name]
	switch {
	case o == nil:
		err = p.planCreate(dhcpHosts)
	case o.Owner == nil:
		h := hint.Hint{Kind: hint.Adopt, Tenant: nw.Tenant,
			Command: fmt.Sprintf("add <%s:owner xmlns:%s=%q tenant=%q/> to its <metadata> (virsh -c %s net-edit %s)", ownership.Prefix, ownership.Prefix, ownership.NS, nw.Tenant, nw.Host, nw.Name)}
		return nil, nil, hint.Errorf(h, "network %s on %s exists but carries no site owner element, so site will not change it", nw.Name, nw.Host)
	case o.Owner.Tenant != nw.Tenant && step.Removal != "":
		h := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: o.Owner.Tenant, InRun: true, Target: step.Removal, Gate: string(plan.GateNetDestroy)}
		return nil, nil, hint.Errorf(h, "network %s on %s belongs to tenant %q, not %q, and %s no longer declares it: its removal is step %s in a run of these PATHs", nw.Name, nw.Host, o.Owner.Tenant, nw.Tenant, o.Owner.Tenant, step.Removal)
	case o.Owner.Tenant != nw.Tenant:
		h := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: o.Owner.Tenant, Target: graph.NetworkStepID(nw.Host, nw.Name), Gate: string(plan.GateNetDestroy)}
		return nil, nil, hint.Errorf(h, "network %s on %s belongs to tenant %q, not %q", nw.Name, nw.Host, o.Owner.Tenant, nw.Tenant)
	default:
		err = p.planUpdate(o, dhcpHosts)
	}
	if err != nil {
		return nil, nil, err
	}
	p.sp.Fingerprint = hosts.Fingerprint(p.seen...)
	p.det.image = p.journalImage()
	return p.sp, p.det, nil
}

// planner holds one network step's planning state.
type planner struct {
	n    Driver
	h    *hosts.Obs
	nw   *model.Network
	step *graph.Step
	sp   *backends.StepPlan
	det  *Detail
	seen []string // observed facts, for the fingerprint
}

func (p *planner) change(key string, a plan.Action, imp plan.Impact, reason string, before, after map[string]any, gates ...plan.Gate) {
	p.sp.Changes = append(p.sp.Changes, plan.Change{Key: key, Step: p.step.ID, Phase: p.step.Phase, Tenant: p.nw.Tenant,
		Action: a, Impact: imp, Gates: gates, Reason: reason, Before: before, After: after})
}

func (p *planner) add(ops ...Op) { p.det.Ops = append(p.det.Ops, ops...) }

// planCreate defines and starts a network the host does not have.
func (p *planner) planCreate(hosts []libvirtxml.NetworkDHCPHost) error {
	nw := p.nw
	own := &ownership.Owner{Tenant: nw.Tenant}
	def := &libvirtxml.Network{Name: nw.Name}
	if err := network.Apply(def, nw, own, "", hosts); err != nil {
		return err
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("network %s: %w", nw.Name, err)
	}
	after := map[string]any{"network": network.Shape(def, own), "autostart": nw.Autostart, "active": true}
	if len(hosts) > 0 {
		after["dhcp hosts"] = network.HostLines(hosts)
	}
	p.change(p.step.ID, plan.ActionCreate, plan.ImpactNone, "new "+modeWords[nw.ModeOrNAT()], nil, after)
	p.add(Op{Kind: OpDefine, Name: nw.Name, XML: x, Net: nw}, Op{Kind: OpStart, Name: nw.Name})
	if nw.Autostart {
		p.add(Op{Kind: OpAutostart, Name: nw.Name, Bool: true})
	}
	p.seen = append(p.seen, nw.Name, "absent")
	return nil
}

// planUpdate converges a network site owns: its definition, its DHCP
// host entries, and whether it runs and autostarts. A running network
// keeps the definition it was started with until it is restarted, which
// site never does unasked: what the persistent definition has and the
// running network lacks is shown as pending on every run until then.
func (p *planner) planUpdate(o *hosts.Network, hosts []libvirtxml.NetworkDHCPHost) error {
	nw := p.nw
	p.seen = append(p.seen, nw.Name, o.XML, o.LiveXML, strconv.FormatBool(o.Active), strconv.FormatBool(o.Autostart))
	def := &libvirtxml.Network{}
	if err := def.Unmarshal(o.XML); err != nil {
		return fmt.Errorf("network %s: %w", nw.Name, err)
	}
	own := &ownership.Owner{Tenant: nw.Tenant}
	before, curHosts := network.Shape(def, o.Owner), network.HostLines(network.HostsOf(def))
	if err := network.Apply(def, nw, own, o.Others, hosts); err != nil {
		return err
	}
	after, nextHosts := network.Shape(def, own), network.HostLines(hosts)
	if was := network.ModeOf(network.Must(o.XML)); was != nw.ModeOrNAT() && o.Active {
		return p.planRecreate(o, def, was, before, after)
	}
	// The running network's shape, with the wanted owner: the owner
	// element is not served, so it never keeps anything pending.
	live := after
	if o.Active && o.Live != nil {
		live = network.Shape(o.Live, own)
	}
	hostsDiffer := !slices.Equal(curHosts, nextHosts)
	define := before != after || !o.Persistent || (hostsDiffer && !o.Active)
	if define {
		x, err := def.Marshal()
		if err != nil {
			return fmt.Errorf("network %s: %w", nw.Name, err)
		}
		if before != after || !o.Persistent {
			reason := "network definition"
			imp := plan.ImpactNone
			if o.Active {
				imp = plan.ImpactNextBoot
				reason = "written to the persistent definition; " + p.restartHint()
				if live == after {
					reason = "written to the persistent definition; the running network already has it, so nothing stays pending"
				}
			}
			p.change(p.step.ID, plan.ActionUpdate, imp, reason, map[string]any{"network": before}, map[string]any{"network": after})
		}
		p.add(Op{Kind: OpDefine, Name: nw.Name, XML: x, Net: nw, Prev: o.XML})
	}
	if o.Active && before == after && live != after {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNextBoot, "already in the persistent definition; "+p.restartHint(),
			map[string]any{"network": live}, map[string]any{"network": after})
		p.det.Waiting++
	}
	if o.Active {
		p.planLiveHosts(o, def, hosts, define)
	} else if hostsDiffer {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNone, "DHCP host entries (fixed addresses of the tenant's VMs), used when the network starts",
			map[string]any{"dhcp hosts": curHosts}, map[string]any{"dhcp hosts": nextHosts})
	}
	if !o.Active {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "start the network", map[string]any{"active": false}, map[string]any{"active": true})
		p.add(Op{Kind: OpStart, Name: nw.Name})
	}
	if o.Autostart != nw.Autostart {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "autostart (host side only)", map[string]any{"autostart": o.Autostart}, map[string]any{"autostart": nw.Autostart})
		p.add(Op{Kind: OpAutostart, Name: nw.Name, Bool: nw.Autostart})
	}
	return nil
}

// restartHint says when a change written to a running network's
// persistent definition takes effect.
func (p *planner) restartHint() string {
	return fmt.Sprintf("takes effect when the network is next restarted (site never restarts a network; virsh net-destroy %s then virsh net-start %s does, and its guests lose their connection meanwhile)", p.nw.Name, p.nw.Name)
}

// modeWords names a network mode in a plan.
var modeWords = map[model.NetMode]string{
	model.NetNAT:      "NAT network",
	model.NetIsolated: "isolated network (no forward, no route out)",
	model.NetBridge:   "network on a host bridge",
}

// planRecreate changes the mode of an active network. libvirt has no
// live change of a network's forward mode, and a new persistent
// definition would switch it on the next restart, under guests
// (a host reboot), unannounced; so the network is stopped, defined anew
// and started: behind GATE-NET-DESTROY, and only while nothing uses it
// (no interface on it in any domain's definition, no DHCP lease).
func (p *planner) planRecreate(o *hosts.Network, def *libvirtxml.Network, was model.NetMode, before, after string) error {
	nw := p.nw
	reason := fmt.Sprintf("mode %s → %s: libvirt cannot change a running network's mode", was, nw.ModeOrNAT())
	if rf, busy := p.n.inUse(p.h, o); busy {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactRefused,
			reason+"; refused for now: "+rf.why+"; "+rf.todo+"; a later run recreates it (with "+string(plan.GateNetDestroy)+") once nothing uses it",
			map[string]any{"network": before, "in use": rf.users}, map[string]any{"network": after})
		p.seen = append(p.seen, "refused", strings.Join(rf.users, ","))
	} else {
		x, err := def.Marshal()
		if err != nil {
			return fmt.Errorf("network %s: %w", nw.Name, err)
		}
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactDestroy,
			reason+", so it is stopped, defined anew and started (nothing uses it: no attached interfaces, no DHCP leases)",
			map[string]any{"network": before}, map[string]any{"network": after}, plan.GateNetDestroy)
		p.add(Op{Kind: OpStop, Gate: plan.GateNetDestroy, Name: nw.Name}, Op{Kind: OpDefine, Name: nw.Name, XML: x, Net: nw, Prev: o.XML}, Op{Kind: OpStart, Name: nw.Name})
	}
	// Autostart is host side only: it changes whether or not the mode
	// can change yet.
	if o.Autostart != nw.Autostart {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "autostart (host side only)", map[string]any{"autostart": o.Autostart}, map[string]any{"autostart": nw.Autostart})
		p.add(Op{Kind: OpAutostart, Name: nw.Name, Bool: nw.Autostart})
	}
	return nil
}

// planLiveHosts converges the DHCP host entries of an active network.
// While the network runs the address range the spec wants, they change
// live (virNetworkUpdate), and in the persistent definition too unless
// a define writes it. While it runs another range (a cidr change waits
// for its restart), the running network keeps the entries it has: an
// entry outside the range it serves is wrong there, so they are written
// to the persistent definition only, and shown pending until the
// restart. def is the wanted definition; defined says a define writes
// it.
func (p *planner) planLiveHosts(o *hosts.Network, def *libvirtxml.Network, hosts []libvirtxml.NetworkDHCPHost, defined bool) {
	cur, running := network.HostsOf(network.Must(o.XML)), network.HostsOf(o.Live)
	curLines, liveLines, nextLines := network.HostLines(cur), network.HostLines(running), network.HostLines(hosts)
	if sameRange(o.Live, def) {
		var config []libvirtxml.NetworkDHCPHost
		if !defined {
			config = cur
		}
		p.hostOps(running, true, config, hosts, !defined)
		switch {
		case !slices.Equal(liveLines, nextLines):
			p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "DHCP host entries (fixed addresses of the tenant's VMs), updated live with virNetworkUpdate",
				map[string]any{"dhcp hosts": liveLines}, map[string]any{"dhcp hosts": nextLines})
		case !slices.Equal(curLines, nextLines):
			p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNextBoot, "DHCP host entries written to the persistent definition; the running network already has them, so nothing stays pending",
				map[string]any{"dhcp hosts": curLines}, map[string]any{"dhcp hosts": nextLines})
		}
		return
	}
	if !defined {
		p.hostOps(nil, false, cur, hosts, true)
	}
	where := "the running network"
	if o.Live != nil && len(o.Live.IPs) > 0 {
		where += " (" + network.IPPrefix(o.Live.IPs[0]) + ")"
	}
	switch {
	case !slices.Equal(curLines, nextLines):
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNextBoot,
			"DHCP host entries written to the persistent definition only: "+where+" does not serve the wanted range yet and keeps its entries until the network is next restarted",
			map[string]any{"dhcp hosts": curLines}, map[string]any{"dhcp hosts": nextLines})
	case !slices.Equal(liveLines, nextLines):
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNextBoot, "DHCP host entries already in the persistent definition; they take effect when the network is next restarted",
			map[string]any{"dhcp hosts": liveLines}, map[string]any{"dhcp hosts": nextLines})
		p.det.Waiting++
	}
}

// MaxLeasesNamed is how many of a network's DHCP leases its refusal
// names: how many there are is its guests' to choose.
const MaxLeasesNamed = 3
