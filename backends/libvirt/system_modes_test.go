//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// The network modes on the real system daemon: isolated (a bridge and
// dnsmasq of libvirt's, no forward, no NAT), bridge (an existing host
// bridge, no address and no dnsmasq of libvirt's), and a mode change,
// which destroys and recreates the network behind GATE-NET-DESTROY and
// is refused while the network is in use.

// firewallMentions returns the rules of iptables table that name cidr:
// what libvirt wrote for the network (libvirt 9 writes iptables rules).
func firewallMentions(t *testing.T, table, cidr string) []string {
	t.Helper()
	out, err := exec.Command("iptables-save", "-t", table).CombinedOutput()
	if err != nil {
		t.Fatalf("iptables-save -t %s: %v: %s", table, err, out)
	}
	var rules []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, cidr) {
			rules = append(rules, l)
		}
	}
	return rules
}

// networkLeases reads network's DHCP leases as libvirt reports them
// (virNetworkGetDHCPLeases).
func networkLeases(t *testing.T, r *rig, network string) []guestLease {
	t.Helper()
	n, err := r.conn().LookupNetworkByName(network)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Free()
	ls, err := n.GetDHCPLeases()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]guestLease, 0, len(ls))
	for _, l := range ls {
		out = append(out, guestLease{l.IPaddr, l.Mac, l.Hostname})
	}
	return out
}

// waitLease waits until libvirt reports the lease of mac on network
// (dnsmasq's lease script writes it after the client has its address;
// the test's timeout bounds the wait) and returns it as "ip mac".
func waitLease(t *testing.T, r *rig, network, mac string) string {
	t.Helper()
	for {
		for _, l := range networkLeases(t, r, network) {
			if strings.EqualFold(l.MAC, mac) {
				return l.IP + " " + l.MAC
			}
		}
		if libvirttest.DnsmasqPID(network) == 0 {
			t.Fatalf("dnsmasq of %s stopped before it reported the lease", network)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSystemIsolatedNetwork: an isolated network starts with its bridge,
// gateway address and dnsmasq, and serves a real DHCP client, but has no
// forward element and libvirt writes no NAT or forwarding rule for it,
// where a NAT network beside it has both. A mode change of the network,
// while the client holds its lease, is refused.
func TestSystemIsolatedNetwork(t *testing.T) {
	r, s := systemRig(t)
	natCIDR, isoCIDR := s.CIDR(t), s.CIDR(t)
	nat := &model.Network{Tenant: tenant, Name: s.Name("a-nat"), Host: r.host, Mode: model.NetNAT, CIDR: natCIDR}
	iso := &model.Network{Tenant: tenant, Name: s.Name("iso"), Host: r.host, Mode: model.NetIsolated, CIDR: isoCIDR, Autostart: true}
	g := r.graph(nil, []*model.Network{nat, iso})
	obs, run := r.diff(g)
	created := false
	for _, c := range obs.Plan.Changes {
		if c.Key == "network/"+r.host+"/"+iso.Name {
			created = strings.Contains(c.Reason, "isolated network") && strings.HasPrefix(fmt.Sprint(c.After["network"]), "forward=isolated ")
		}
	}
	if !created {
		t.Fatalf("got plan %q, want the isolated network created as one", lines(obs.Plan))
	}
	r.apply(g, obs, run)
	br, _ := wantBridgeUp(t, r, iso.Name, strings.TrimSuffix(isoCIDR, "0/24")+"1/24")
	wantBridgeUp(t, r, nat.Name, strings.TrimSuffix(natCIDR, "0/24")+"1/24")
	if ln, _ := r.network(iso.Name); ln.Def.Forward != nil || !ln.Autostart {
		t.Errorf("isolated network: forward %+v autostart %v, want no forward element and autostart", ln.Def.Forward, ln.Autostart)
	}
	if rules := firewallMentions(t, "nat", isoCIDR); len(rules) != 0 {
		t.Errorf("NAT rules for the isolated network: %q", rules)
	}
	if rules := firewallMentions(t, "filter", isoCIDR); len(rules) != 0 {
		t.Errorf("forwarding rules for the isolated network's prefix: %q", rules)
	}
	if rules := firewallMentions(t, "nat", natCIDR); len(rules) == 0 {
		t.Errorf("no NAT rule for the NAT network %s: the check above proves nothing", natCIDR)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Fatalf("second plan: got %q, want no changes", lines(again.Plan))
	}

	lease := waitLease(t, r, iso.Name, s.TakeLease(t, br))
	iso.Mode = model.NetNAT
	obs, run = r.diff(g)
	want := []string{"refused update network/" + r.host + "/" + iso.Name + " [in use,network]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("mode change with a lease: got plan %q, want %q", got, want)
	}
	c := obs.Plan.Changes[0]
	if users, _ := c.Before["in use"].([]string); !slices.Equal(users, []string{lease}) || !strings.Contains(c.Reason, "refused for now: in use: 1 DHCP lease (") {
		t.Errorf("got users %v reason %q, want [%s] and the lease named", c.Before["in use"], c.Reason, lease)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	if ln, _ := r.network(iso.Name); ln.Def.Forward != nil {
		t.Errorf("the refused mode change was written: forward %+v", ln.Def.Forward)
	}
}

// TestSystemNetworkModeChange: an unused network changes mode only by
// being destroyed and started anew, so it needs GATE-NET-DESTROY; with
// it, the network runs again in the new mode, with a new dnsmasq.
func TestSystemNetworkModeChange(t *testing.T) {
	r, s := systemRig(t)
	cidr := s.CIDR(t)
	lan := &model.Network{Tenant: tenant, Name: s.Name("lan"), Host: r.host, Mode: model.NetNAT, CIDR: cidr}
	g := r.graph(nil, []*model.Network{lan})
	r.converge(g)
	gw := strings.TrimSuffix(cidr, "0/24") + "1/24"
	_, pid := wantBridgeUp(t, r, lan.Name, gw)

	lan.Mode = model.NetIsolated
	obs, run := r.diff(g)
	want := []string{"destroy update network/" + r.host + "/" + lan.Name + " [network] GATE-NET-DESTROY"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateNetDestroy)
	if _, p := wantBridgeUp(t, r, lan.Name, gw); p != pid {
		t.Errorf("dnsmasq %d -> %d without the gate, want the network untouched", pid, p)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	_, pid2 := wantBridgeUp(t, r, lan.Name, gw)
	if ln, _ := r.network(lan.Name); ln.Def.Forward != nil || pid2 == pid {
		t.Errorf("forward %+v, dnsmasq %d -> %d: want the network restarted isolated", ln.Def.Forward, pid, pid2)
	}
	if rules := firewallMentions(t, "nat", cidr); len(rules) != 0 {
		t.Errorf("NAT rules left for the now isolated network: %q", rules)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want no changes", lines(again.Plan))
	}
}

// TestSystemBridgedNetwork: a network onto a host bridge the test makes
// (as an operator makes br0) starts with no address and no dnsmasq of
// libvirt's; a running guest's interface on it is a port of that host
// bridge; the next plan is empty; and a mode change is refused while the
// guest is attached.
func TestSystemBridgedNetwork(t *testing.T) {
	r, s := systemRig(t)
	br := s.HostBridge(t, "up")
	up := &model.Network{Tenant: tenant, Name: s.Name("up"), Host: r.host, Mode: model.NetBridge, Bridge: br}
	vm := r.vm(s.Name("guest"))
	vm.NICs = []model.NIC{{Network: up.Name}}
	g := r.graph([]*model.VM{vm}, []*model.Network{up})
	obs, _ := r.diff(g)
	if c := obs.Plan.Changes[0]; !strings.HasPrefix(fmt.Sprint(c.After["network"]), "forward=bridge bridge="+br+" ip= ") {
		t.Errorf("planned %v, want the network on host bridge %s", c.After["network"], br)
	}
	r.converge(g)

	ln, err := r.network(up.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !ln.Active || ln.Def.Forward == nil || ln.Def.Forward.Mode != "bridge" || ln.Def.Bridge == nil || ln.Def.Bridge.Name != br || len(ln.Def.IPs) != 0 {
		t.Fatalf("network: active=%v forward=%+v bridge=%+v ips=%+v, want it active in bridge mode on %s with no address", ln.Active, ln.Def.Forward, ln.Def.Bridge, ln.Def.IPs, br)
	}
	if pid := libvirttest.DnsmasqPID(up.Name); pid != 0 {
		t.Errorf("dnsmasq %d runs for a bridged network", pid)
	}
	dom := r.domain(vm.Name)
	if !dom.Running || len(dom.Live.Devices.Interfaces) != 1 || dom.Live.Devices.Interfaces[0].Target == nil {
		t.Fatalf("guest: running=%v interfaces=%+v, want it running with one interface", dom.Running, dom.Live.Devices.Interfaces)
	}
	tap := dom.Live.Devices.Interfaces[0].Target.Dev
	if ports := attachedTo(t, br); !slices.Equal(ports, []string{tap}) {
		t.Fatalf("host bridge %s has ports %v, want the guest's %s", br, ports, tap)
	}

	// libvirt's live XML shows the guest's interface on the host bridge,
	// not on the network: read back as the network, nothing is pending.
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Fatalf("after converge: got %q, want no changes", lines(again.Plan))
	}

	up.Mode, up.Bridge, up.CIDR = model.NetIsolated, "", s.CIDR(t)
	obs, run := r.diff(g)
	want := []string{"refused update network/" + r.host + "/" + up.Name + " [in use,network]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("mode change with a guest attached: got plan %q, want %q", got, want)
	}
	if users, _ := obs.Plan.Changes[0].Before["in use"].([]string); !slices.Equal(users, []string{vm.Name}) {
		t.Errorf("got users %v, want [%s]", users, vm.Name)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	if ports := attachedTo(t, br); !slices.Equal(ports, []string{tap}) {
		t.Errorf("host bridge %s has ports %v after the refused change, want the guest's %s still", br, ports, tap)
	}

	// The spec drops the guest's NIC too: its persistent definition
	// loses it (next boot), and only the running interface, which
	// libvirt's live XML shows on the host bridge rather than the
	// network, holds the network: still refused, naming the guest.
	vm.NICs = nil
	g = r.graph([]*model.VM{vm}, []*model.Network{up})
	obs, run = r.diff(g)
	r.apply(g, obs, run, plan.GateNetDestroy)
	if d := r.domain(vm.Name); len(d.Inactive.Devices.Interfaces) != 0 || len(d.Live.Devices.Interfaces) != 1 {
		t.Fatalf("got %d persistent and %d live interfaces, want 0 and 1", len(d.Inactive.Devices.Interfaces), len(d.Live.Devices.Interfaces))
	}
	obs, _ = r.diff(g)
	refused := false
	for _, c := range obs.Plan.Changes {
		users, _ := c.Before["in use"].([]string)
		refused = refused || c.Key == "network/"+r.host+"/"+up.Name && slices.Equal(users, []string{vm.Name}) && len(c.Gates) == 0
	}
	if !refused {
		t.Errorf("with only the live interface on the network: got plan %q, want the mode change refused naming %s", lines(obs.Plan), vm.Name)
	}
	if ports := attachedTo(t, br); !slices.Equal(ports, []string{tap}) {
		t.Errorf("host bridge %s has ports %v, want the guest's %s still", br, ports, tap)
	}
}

// TestSystemBridgedNetworkWithoutHostBridge: site does not make host
// bridges; a bridged network onto one the host lacks fails to start
// with an error that names the bridge and says how to make it.
func TestSystemBridgedNetworkWithoutHostBridge(t *testing.T) {
	r, s := systemRig(t)
	br := s.HostBridge(t, "gone")
	if out, err := exec.Command("ip", "link", "del", br).CombinedOutput(); err != nil {
		t.Fatalf("ip link del %s: %v: %s", br, err, out)
	}
	up := &model.Network{Tenant: tenant, Name: s.Name("nobr"), Host: r.host, Mode: model.NetBridge, Bridge: br}
	g := r.graph(nil, []*model.Network{up})
	obs, _ := r.diff(g)
	if len(obs.Plan.Blocked) != 1 || obs.Plan.HasChanges() {
		t.Fatalf("got plan %q blocked %+v, want the network's step blocked", lines(obs.Plan), obs.Plan.Blocked)
	}
	if why := obs.Plan.Blocked[0].Reason; !strings.Contains(why, "host bridge "+br+" does not exist") || !strings.Contains(why, "ip link add "+br+" type bridge") {
		t.Errorf("got %q, want the missing host bridge named and how to make it", why)
	}
	if _, err := r.network(up.Name); err == nil {
		t.Errorf("network %s was defined onto a missing host bridge", up.Name)
	}
}

// TestSystemModeChangeRefusedAfterTheStop: a network whose mode changed
// is stopped, defined anew and started; when another tenant's network
// overlapping it was defined after the plan, the define is refused
// after the stop. The error must say the network was stopped, which
// "defined nothing" alone hides: the operator would take it for
// untouched, and it is down.
func TestSystemModeChangeRefusedAfterTheStop(t *testing.T) {
	r, s := systemRig(t)
	cidr := s.CIDR(t)
	lan := &model.Network{Tenant: tenant, Name: s.Name("lan"), Host: r.host, Mode: model.NetNAT, CIDR: cidr}
	g := r.graph(nil, []*model.Network{lan})
	r.converge(g)
	lan.Mode = model.NetIsolated
	obs, run := r.diff(g)
	if want := []string{"destroy update network/" + r.host + "/" + lan.Name + " [network] GATE-NET-DESTROY"}; !slices.Equal(lines(obs.Plan), want) {
		t.Fatalf("got plan %q, want %q", lines(obs.Plan), want)
	}
	other := s.Name("other")
	othersNetwork(t, r.conn(), other, strings.TrimSuffix(cidr, "0/24")+"1", false) // between the plan and the apply
	t.Cleanup(func() {
		if nw, err := r.conn().LookupNetworkByName(other); err == nil {
			_ = nw.Undefine()
			nw.Free()
		}
	})

	rep, err := r.tryApply(g, obs, run, plan.GateNetDestroy)
	if err != nil {
		t.Fatal(err)
	}
	step := stepReport(t, rep, "network/"+r.host+"/"+lan.Name)
	if step.Status != engine.StatusFailed || !strings.Contains(step.Reason, "defined nothing") {
		t.Fatalf("the network's step %s (%s), want it failed at the define", step.Status, step.Reason)
	}
	if ln, err := r.network(lan.Name); err != nil || ln.Active {
		t.Fatalf("network %s active=%v (%v), want it stopped by the step (the case does not do what it says)", lan.Name, ln.Active, err)
	}
	if want := "stopped network " + lan.Name; !strings.Contains(step.Reason, want) {
		t.Errorf("the step's error does not say %q, and the network stays stopped:\n%s", want, step.Reason)
	}
}
