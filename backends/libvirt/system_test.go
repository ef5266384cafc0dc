//go:build cgo && libvirt_dlopen

package libvirt

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// systemHost is how the system tests' specs name the host; the driver
// maps it to the test's own daemon through SITE_LIBVIRT_URI_MAP, read by
// NewFromEnv as site's command reads it.
const systemHost = "qemu:///system"

// systemRig starts a root system libvirtd and drives it through a
// driver built as cmd/site builds one.
func systemRig(t *testing.T) (*rig, *libvirttest.System) {
	t.Helper()
	return systemRigWith(t, nil)
}

// systemRigWith is systemRig with more environment for the driver: env
// answers for every variable but SITE_LIBVIRT_URI_MAP ("" when unset).
func systemRigWith(t *testing.T, env map[string]string) (*rig, *libvirttest.System) {
	t.Helper()
	if err := Available(); err != nil {
		libvirttest.Need(t, err.Error())
	}
	s := libvirttest.StartSystem(t)
	d := NewFromEnv(runstate.Start(&backends.Run{Getenv: func(k string) string {
		if k == URIMapEnv {
			return systemHost + "=" + s.URI
		}
		return env[k]
	}}))
	return newRigWith(t, systemHost, d), s
}

// liveNet reads network name back from the daemon: whether it is active,
// persistent and autostarted, and its definition.
type liveNet struct {
	Active, Persistent, Autostart bool
	Def                           *libvirtxml.Network
}

func (r *rig) network(name string) (liveNet, error) {
	n, err := r.conn().LookupNetworkByName(name)
	if err != nil {
		return liveNet{}, err
	}
	defer n.Free()
	var ln liveNet
	ln.Active, _ = n.IsActive()
	ln.Persistent, _ = n.IsPersistent()
	ln.Autostart, _ = n.GetAutostart()
	x, err := n.GetXMLDesc(0)
	if err != nil {
		return ln, err
	}
	ln.Def = network.Must(x)
	return ln, nil
}

// wantBridgeUp fails unless the network runs on the host: its bridge
// exists with the gateway address and libvirt's dnsmasq serves it. It
// returns the bridge name and dnsmasq's PID.
func wantBridgeUp(t *testing.T, r *rig, name, gateway string) (string, int) {
	t.Helper()
	ln, err := r.network(name)
	if err != nil {
		t.Fatal(err)
	}
	if !ln.Active || !ln.Persistent || ln.Def.Bridge == nil || ln.Def.Bridge.Name == "" {
		t.Fatalf("network %s: active=%v persistent=%v bridge=%+v, want an active persistent network with a bridge", name, ln.Active, ln.Persistent, ln.Def.Bridge)
	}
	br := ln.Def.Bridge.Name
	ifc, err := net.InterfaceByName(br)
	if err != nil {
		t.Fatalf("bridge %s of network %s: %v", br, name, err)
	}
	addrs, _ := ifc.Addrs()
	var got []string
	for _, a := range addrs {
		got = append(got, a.String())
	}
	if !slices.Contains(got, gateway) {
		t.Errorf("bridge %s has addresses %v, want %s", br, got, gateway)
	}
	pid := libvirttest.DnsmasqPID(name)
	if pid == 0 {
		t.Errorf("no dnsmasq runs for network %s", name)
	}
	return br, pid
}

// TestSystemNATNetwork: a NAT network from the model is defined, started
// and autostarted on a real system daemon, which gives it a bridge with
// the gateway address and a dnsmasq; the next plan is empty.
func TestSystemNATNetwork(t *testing.T) {
	r, s := systemRig(t)
	cidr := s.CIDR(t)
	lan := &model.Network{Tenant: tenant, Name: s.Name("lan"), Host: r.host, CIDR: cidr, Autostart: true}
	g := r.graph(nil, []*model.Network{lan})

	obs, run := r.diff(g)
	want := []string{"none create network/" + r.host + "/" + lan.Name + " [active,autostart,network]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	gw := strings.TrimSuffix(cidr, "0/24") + "1/24"
	br, pid := wantBridgeUp(t, r, lan.Name, gw)
	if ln, _ := r.network(lan.Name); !ln.Autostart {
		t.Error("the network does not autostart")
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Fatalf("second plan: got %q blocked %+v, want no changes", lines(again.Plan), again.Plan.Blocked)
	}

	// Autostart turned off by hand is drift, fixed live: same bridge,
	// same dnsmasq.
	if _, err := s.Virsh("net-autostart", "--disable", lan.Name); err != nil {
		t.Fatal(err)
	}
	obs, run = r.diff(g)
	want = []string{"live update network/" + r.host + "/" + lan.Name + " [autostart]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	if br2, pid2 := wantBridgeUp(t, r, lan.Name, gw); br2 != br || pid2 != pid {
		t.Errorf("bridge %s -> %s, dnsmasq %d -> %d: want the network left running", br, br2, pid, pid2)
	}
	if ln, _ := r.network(lan.Name); !ln.Autostart {
		t.Error("autostart not set back")
	}
}

// attachedTo lists the tap devices the daemon attached to bridge br, as
// the kernel sees them (the bridge's ports).
func attachedTo(t *testing.T, br string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join("/sys/class/net", br, "brif"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestIncident3_SystemNetworkInUseNotDestroyed: a network a running QEMU
// guest has an interface on is never destroyed, even when the spec drops
// it; once the guest is gone, the destroy needs GATE-NET-DESTROY, and
// then takes the bridge and dnsmasq with it.
func TestIncident3_SystemNetworkInUseNotDestroyed(t *testing.T) {
	r, s := systemRig(t)
	cidr, keepCIDR := s.CIDR(t), s.CIDR(t)
	keep := &model.Network{Tenant: tenant, Name: s.Name("a-keep"), Host: r.host, CIDR: keepCIDR, Autostart: false}
	old := &model.Network{Tenant: tenant, Name: s.Name("old"), Host: r.host, CIDR: cidr, Autostart: false}
	vm := r.vm(s.Name("user"))
	vm.NICs = []model.NIC{{Network: old.Name}}
	r.converge(r.graph([]*model.VM{vm}, []*model.Network{keep, old}))
	br, pid := wantBridgeUp(t, r, old.Name, strings.TrimSuffix(cidr, "0/24")+"1/24")
	dom := r.domain(vm.Name)
	if !dom.Running || len(dom.Live.Devices.Interfaces) != 1 || dom.Live.Devices.Interfaces[0].Target == nil {
		t.Fatalf("guest: running=%v interfaces=%+v, want it running with one interface", dom.Running, dom.Live.Devices.Interfaces)
	}
	tap := dom.Live.Devices.Interfaces[0].Target.Dev
	if ports := attachedTo(t, br); !slices.Equal(ports, []string{tap}) {
		t.Fatalf("bridge %s has ports %v, want the guest's %s", br, ports, tap)
	}
	qemuPID := s.QEMUPID(vm.Name)

	// The spec drops the network and the NIC: the guest's definition
	// loses the NIC at next boot, but its running interface stays on
	// the bridge, so the network is refused, naming the guest.
	vm.NICs = nil
	g := r.graph([]*model.VM{vm}, []*model.Network{keep})
	obs, run := r.diff(g)
	want := []string{
		"refused delete network/" + r.host + "/" + old.Name + " [in use]",
		"next-boot update vm/" + r.host + "/" + vm.Name + " [nics]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	c := obs.Plan.Changes[0]
	if users, _ := c.Before["in use"].([]string); !slices.Equal(users, []string{vm.Name}) || len(c.Gates) > 0 {
		t.Errorf("got users %v gates %v, want [%s] and no gate", c.Before["in use"], c.Gates, vm.Name)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	if _, p := wantBridgeUp(t, r, old.Name, strings.TrimSuffix(cidr, "0/24")+"1/24"); p != pid {
		t.Errorf("dnsmasq %d -> %d, want the network untouched", pid, p)
	}
	if ports := attachedTo(t, br); !slices.Equal(ports, []string{tap}) {
		t.Errorf("bridge %s has ports %v after apply, want the guest's %s still", br, ports, tap)
	}
	if got := s.QEMUPID(vm.Name); got != qemuPID || got == 0 {
		t.Errorf("QEMU PID %d -> %d, want the guest left running", qemuPID, got)
	}
	// Now only the running guest's live interface holds the network (its
	// persistent definition has no NIC): still refused.
	if d := r.domain(vm.Name); len(d.Inactive.Devices.Interfaces) != 0 || len(d.Live.Devices.Interfaces) != 1 {
		t.Fatalf("got %d persistent and %d live interfaces, want 0 and 1", len(d.Inactive.Devices.Interfaces), len(d.Live.Devices.Interfaces))
	}
	obs, _ = r.diff(g)
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("after apply: got plan %q, want %q", got, want)
	}

	// With the guest gone (by hand: a tenant that declares no VM on a
	// host is not swept there), the bridge has no port and dnsmasq
	// reports no lease: the destroy is planned, behind GATE-NET-DESTROY.
	for _, cmd := range [][]string{{"destroy", vm.Name}, {"undefine", vm.Name}} {
		if _, err := s.Virsh(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	g = r.graph(nil, []*model.Network{keep})
	if ports := attachedTo(t, br); len(ports) != 0 {
		t.Fatalf("bridge %s still has ports %v after the guest was destroyed", br, ports)
	}
	obs, run = r.diff(g)
	want = []string{"destroy delete network/" + r.host + "/" + old.Name + " [active] GATE-NET-DESTROY"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateNetDestroy)
	wantBridgeUp(t, r, old.Name, strings.TrimSuffix(cidr, "0/24")+"1/24")

	r.apply(g, obs, run, plan.GateNetDestroy)
	if _, err := r.network(old.Name); err == nil {
		t.Errorf("network %s still defined", old.Name)
	}
	if _, err := net.InterfaceByName(br); err == nil {
		t.Errorf("bridge %s still exists", br)
	}
	if libvirttest.DnsmasqPID(old.Name) != 0 {
		t.Errorf("dnsmasq for %s still runs", old.Name)
	}
	wantBridgeUp(t, r, keep.Name, strings.TrimSuffix(keep.CIDR, "0/24")+"1/24")
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want no changes", lines(again.Plan))
	}
}

// TestIncident3_SystemNetworkWithLeaseNotDestroyed: a network no domain
// uses but whose dnsmasq handed out a DHCP lease (a real client on the
// bridge, which no domain definition shows) is refused too, naming the
// lease, whatever the gates.
func TestIncident3_SystemNetworkWithLeaseNotDestroyed(t *testing.T) {
	r, s := systemRig(t)
	cidr, keepCIDR := s.CIDR(t), s.CIDR(t)
	keep := &model.Network{Tenant: tenant, Name: s.Name("a-keep"), Host: r.host, CIDR: keepCIDR}
	leased := &model.Network{Tenant: tenant, Name: s.Name("leased"), Host: r.host, CIDR: cidr}
	r.converge(r.graph(nil, []*model.Network{keep, leased}))
	br, _ := wantBridgeUp(t, r, leased.Name, strings.TrimSuffix(cidr, "0/24")+"1/24")
	mac := s.TakeLease(t, br)

	lease := waitLease(t, r, leased.Name, mac)

	g := r.graph(nil, []*model.Network{keep})
	obs, run := r.diff(g)
	want := []string{"refused delete network/" + r.host + "/" + leased.Name + " [in use]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	c := obs.Plan.Changes[0]
	if users, _ := c.Before["in use"].([]string); !slices.Equal(users, []string{lease}) || !strings.Contains(c.Reason, "in use: 1 DHCP lease (") {
		t.Errorf("got users %v reason %q, want [%s] and the lease named", c.Before["in use"], c.Reason, lease)
	}
	// The refusal is no change applied to the step that planned it (the
	// kept network's), and no boot is involved.
	rep := r.apply(g, obs, run, plan.GateNetDestroy)
	wantBridgeUp(t, r, leased.Name, strings.TrimSuffix(cidr, "0/24")+"1/24")
	for _, st := range rep.Steps {
		if st.Status == engine.StatusApplied {
			t.Errorf("step %s: %s with %d changes, want nothing applied", st.Step, st.Status, st.Changes)
		}
		for _, n := range st.Notes {
			if strings.Contains(n, "boot") {
				t.Errorf("step %s: note %q, want no boot mentioned", st.Step, n)
			}
		}
	}
	if got := refusedKeys(rep); !slices.Equal(got, []string{"network/" + r.host + "/" + leased.Name}) {
		t.Errorf("report refuses %q, want the leased network", got)
	}
}
