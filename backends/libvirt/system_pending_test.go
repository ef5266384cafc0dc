//go:build cgo && libvirt_dlopen

package libvirt

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// hostsIn lists the DHCP host entries of network XML x and says whether
// each lies inside the network's own address range.
func hostsIn(t *testing.T, x string) (hosts []string, outside []string) {
	t.Helper()
	def := network.Must(x)
	if len(def.IPs) == 0 {
		t.Fatalf("network has no address:\n%s", x)
	}
	pfx := netip.MustParsePrefix(def.IPs[0].Address + "/" + strconv.Itoa(int(def.IPs[0].Prefix))).Masked()
	for _, h := range network.HostsOf(def) {
		hosts = append(hosts, h.IP)
		if !pfx.Contains(netip.MustParseAddr(h.IP)) {
			outside = append(outside, h.IP)
		}
	}
	return hosts, outside
}

// TestSystemNetworkCIDRChangePendingUntilRestart: a new cidr for an
// active network is written to its persistent definition; the running
// network keeps its old address until it is restarted, and until then
// every diff shows the change as pending (so site diff
// --detailed-exitcode exits 2), as a running guest's next-boot changes
// are. A fixed address in the new range is not put into the running
// network, whose range does not hold it.
func TestSystemNetworkCIDRChangePendingUntilRestart(t *testing.T) {
	r, s := systemRig(t)
	oldCIDR, newCIDR := s.CIDR(t), s.CIDR(t)
	oldNet, newNet := strings.TrimSuffix(oldCIDR, "0/24"), strings.TrimSuffix(newCIDR, "0/24")
	lan := &model.Network{Tenant: tenant, Name: s.Name("lan"), Host: r.host, CIDR: oldCIDR, Autostart: true}
	vm := r.vm(s.Name("keys"))
	vm.Running = false // a defined guest is enough for its DHCP host entry
	vm.NICs = []model.NIC{{Network: lan.Name, Address: oldNet + "10"}}
	g := r.graph([]*model.VM{vm}, []*model.Network{lan})
	r.converge(g)
	br, pid := wantBridgeUp(t, r, lan.Name, oldNet+"1/24")

	lan.CIDR, vm.NICs[0].Address = newCIDR, newNet+"10"
	obs, run := r.diff(g)
	want := []string{
		"next-boot update network/" + r.host + "/" + lan.Name + " [network]",
		"next-boot update network/" + r.host + "/" + lan.Name + " [dhcp hosts]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Errorf("got plan %q, want %q", got, want)
	}
	for _, c := range obs.Plan.Changes {
		if !strings.Contains(c.Reason, "written to the persistent definition") || !strings.Contains(c.Reason, "restarted") {
			t.Errorf("got reason %q, want it written for the network's next restart", c.Reason)
		}
	}
	rep := r.apply(g, obs, run)
	// The running network is untouched: same bridge address, same
	// dnsmasq, and no host entry outside its range.
	if b2, p2 := wantBridgeUp(t, r, lan.Name, oldNet+"1/24"); b2 != br || p2 != pid {
		t.Errorf("bridge %s -> %s, dnsmasq %d -> %d: want the network left running", br, b2, pid, p2)
	}
	live, err := s.Virsh("net-dumpxml", lan.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, outside := hostsIn(t, live); len(outside) > 0 {
		t.Errorf("the running network got host entries %v outside its range:\n%s", outside, live)
	}
	inactive, err := s.Virsh("net-dumpxml", "--inactive", lan.Name)
	if err != nil {
		t.Fatal(err)
	}
	if hosts, outside := hostsIn(t, inactive); !slices.Equal(hosts, []string{newNet + "10"}) || len(outside) > 0 || !strings.Contains(inactive, "address='"+newNet+"1'") {
		t.Errorf("persistent definition: hosts %v (outside %v), want [%s10] under %s1:\n%s", hosts, outside, newNet, newNet, inactive)
	}
	var notes []string
	for _, st := range rep.Steps {
		notes = append(notes, st.Notes...)
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "network/"+r.host+"/"+lan.Name) && strings.Contains(n, "restart")
	}) {
		t.Errorf("apply notes %q, want the network change reported as pending until the network restarts", notes)
	}

	// Every later diff shows it pending, from the running definition.
	for i := 0; i < 2; i++ {
		again, _ := r.diff(g)
		if got := lines(again.Plan); !slices.Equal(got, want) {
			t.Errorf("diff %d after apply: got %q, want %q", i+1, got, want)
		}
		for _, c := range again.Plan.Changes {
			if !strings.Contains(c.Reason, "already in the persistent definition") || c.Impact != plan.ImpactNextBoot {
				t.Errorf("diff %d after apply: got %s %q, want next-boot, already in the persistent definition", i+1, c.Impact, c.Reason)
			}
		}
		if len(again.Plan.Changes) == 0 {
			continue
		}
		if b, _ := again.Plan.Changes[0].Before["network"].(string); !strings.Contains(b, oldNet+"1/24") {
			t.Errorf("diff %d after apply: before %q, want the running network's %s1/24", i+1, b, oldNet)
		}
	}

	// Restarted by hand, the network has it: nothing is pending.
	for _, cmd := range [][]string{{"net-destroy", lan.Name}, {"net-start", lan.Name}} {
		if _, err := s.Virsh(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	wantBridgeUp(t, r, lan.Name, newNet+"1/24")
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("after the restart: got %q, want no changes", lines(again.Plan))
	}
}
