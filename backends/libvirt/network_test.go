//go:build cgo && libvirt_dlopen

package libvirt

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func ownedNetworkXML(name, bridge, ip string) string {
	return `<network><name>` + name + `</name><metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="t1"/></metadata>` +
		`<bridge name="` + bridge + `"/><ip address="` + ip + `" prefix="24"/></network>`
}

const userOfOld = `<domain type="test"><name>user</name><memory>65536</memory><vcpu>1</vcpu>
<os><type arch="i686">hvm</type></os><devices><interface type="network"><source network="old"/></interface></devices></domain>`

func TestIncident3_NetworkInUseNotDestroyed(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains:  []string{userOfOld},
		Networks: []string{ownedNetworkXML("old", "virbr10", "10.10.0.1"), ownedNetworkXML("empty", "virbr11", "10.11.0.1")},
	}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24", Autostart: true}
	g := r.graph(nil, []*model.Network{lan})

	// "old" still has a guest on it, and "empty" is active on a driver
	// that cannot report leases: both refused, whatever the gates.
	obs, run := r.diff(g)
	want := []string{
		"refused delete network/" + r.host + "/empty [in use]",
		"none create network/" + r.host + "/lan [active,autostart,network]",
		"refused delete network/" + r.host + "/old [in use]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reasons := map[string]string{}
	for _, c := range obs.Plan.Changes {
		reasons[c.Key] = c.Reason
	}
	if r := reasons["network/"+r.host+"/old"]; !strings.HasPrefix(r, "refused for now: in use: 1 domain has an interface on it") {
		t.Errorf("old: got reason %q", r)
	}
	if r := reasons["network/"+r.host+"/empty"]; !strings.Contains(r, "cannot confirm it has no DHCP leases") {
		t.Errorf("empty: got reason %q", r)
	}
	// Applying creates lan and leaves both alone; nothing needed a gate.
	r.apply(g, obs, run)
	for _, name := range []string{"old", "empty"} {
		if _, err := r.conn().LookupNetworkByName(name); err != nil {
			t.Fatalf("network %s went away: %v", name, err)
		}
	}

	// Once the guest is gone, "old" is still active and the test driver
	// cannot report leases: not knowing is not wanting.
	dom, err := r.conn().LookupDomainByName("user")
	if err != nil {
		t.Fatal(err)
	}
	_ = dom.Destroy()
	if err := dom.Undefine(); err != nil {
		t.Fatal(err)
	}
	dom.Free()
	obs, _ = r.diff(g)
	for _, c := range obs.Plan.Changes {
		if strings.HasSuffix(c.Key, "/old") && !strings.Contains(c.Reason, "cannot confirm it has no DHCP leases") {
			t.Fatalf("old: got %q, want the unknown-leases refusal", c.Reason)
		}
	}

	// Stopped networks have no leases: both may go, behind the gate.
	for _, name := range []string{"old", "empty"} {
		n, err := r.conn().LookupNetworkByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Destroy(); err != nil {
			t.Fatal(err)
		}
		n.Free()
	}
	obs, run = r.diff(g)
	want = []string{
		"destroy delete network/" + r.host + "/empty [active] GATE-NET-DESTROY",
		"destroy delete network/" + r.host + "/old [active] GATE-NET-DESTROY",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, err = r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateNetDestroy)
	if _, err := r.conn().LookupNetworkByName("empty"); err != nil {
		t.Fatalf("network empty went away without the gate: %v", err)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	for _, name := range []string{"old", "empty"} {
		if _, err := r.conn().LookupNetworkByName(name); err == nil {
			t.Errorf("network %s still defined", name)
		}
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want no changes", lines(again.Plan))
	}
}

func TestNetworkDefineStartAutostart(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24", Autostart: true}
	g := r.graph(nil, []*model.Network{lan})
	r.converge(g)
	n, err := r.conn().LookupNetworkByName("lan")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Free()
	active, _ := n.IsActive()
	auto, _ := n.GetAutostart()
	if !active || !auto {
		t.Errorf("got active=%v autostart=%v, want both true", active, auto)
	}
	x, _ := n.GetXMLDesc(0)
	for _, want := range []string{`<forward mode='nat'`, `address='10.77.0.1'`, `start='10.77.0.2' end='10.77.0.254'`, `tenant="t1"`} {
		if !strings.Contains(x, want) {
			t.Errorf("network XML lacks %s:\n%s", want, x)
		}
	}
	// Out-of-band autostart off is drift, fixed live.
	if err := n.SetAutostart(false); err != nil {
		t.Fatal(err)
	}
	obs, _ := r.diff(g)
	want := []string{"live update network/" + r.host + "/lan [autostart]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A changed CIDR is written for the network's next restart.
	lan.CIDR = "10.78.0.0/24"
	obs, _ = r.diff(g)
	want = []string{"next-boot update network/" + r.host + "/lan [network]", "live update network/" + r.host + "/lan [autostart]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestForeignResourcesRefused(t *testing.T) {
	foreignDomain := `<domain type="test"><name>web</name><memory>65536</memory><vcpu>1</vcpu><os><type arch="i686">hvm</type></os></domain>`
	otherTenant := `<domain type="test"><name>db</name><memory>65536</memory><vcpu>1</vcpu><os><type arch="i686">hvm</type></os>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="other"/></metadata></domain>`
	foreignNet := `<network><name>lan</name><bridge name="virbr12"/></network>`
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{Domains: []string{foreignDomain, otherTenant}, Networks: []string{foreignNet}}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24"}
	g := r.graph([]*model.VM{r.vm("web"), r.vm("db")}, []*model.Network{lan})
	obs, _ := r.diff(g)
	got := map[string]plan.Blocked{}
	for _, b := range obs.Plan.Blocked {
		got[b.Step] = b
	}
	tests := []struct {
		step, want string
		hint       hint.Kind
	}{
		{"vm/" + r.host + "/web", "carries no site owner element", hint.Adopt},
		// Its tenant may have dropped it, and a run of the whole site
		// shows no removal (the ID is this tenant's step): say how.
		{"vm/" + r.host + "/db", `belongs to tenant "other", not "t1"`, hint.RemoveOtherFirst},
		{"network/" + r.host + "/lan", "carries no site owner element", hint.Adopt},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			b := got[tt.step]
			if !strings.Contains(b.Reason, tt.want) || b.Hint == nil || b.Hint.Kind != tt.hint.String() {
				t.Errorf("got %q with hint %+v, want it to say %q with a %s hint", b.Reason, b.Hint, tt.want, tt.hint)
			}
		})
	}
	// The removal it names is other's step, in a run of other's file.
	want := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: "other", Target: "vm/" + r.host + "/db", Gate: string(plan.GateVMDestroy)}.ToJSON()
	if h := got["vm/"+r.host+"/db"].Hint; h == nil || *h != *want {
		t.Errorf("db's hint %+v, want %+v", h, want)
	}
}

// TestNetworkLeftByRunningGuestIsRefused: a spec drops a network and the
// NIC on it together. The guest's definition loses the NIC at next boot,
// but the running guest still has it: the network must stay.
func TestNetworkLeftByRunningGuestIsRefused(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24", Autostart: true}
	dmz := &model.Network{Tenant: tenant, Name: "dmz", Host: r.host, CIDR: "10.78.0.0/24", Autostart: true}
	vm := r.vm("web")
	vm.NICs = []model.NIC{{Network: "dmz", MAC: "52:54:00:AA:BB:01"}, {Network: "lan"}}
	r.converge(r.graph([]*model.VM{vm}, []*model.Network{dmz, lan}))
	if got := r.domain("web").Live.Devices.Interfaces[0].MAC.Address; got != "52:54:00:aa:bb:01" {
		t.Errorf("got MAC %q, want the declared one", got)
	}

	vm.NICs = []model.NIC{{Network: "lan"}}
	g := r.graph([]*model.VM{vm}, []*model.Network{lan})
	obs, run := r.diff(g)
	want := []string{
		"refused delete network/" + r.host + "/dmz [in use]",
		"next-boot update vm/" + r.host + "/web [nics]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if users := obs.Plan.Changes[0].Before["in use"]; !slices.Equal(users.([]string), []string{"web"}) {
		t.Errorf("got users %v, want [web]", users)
	}
	// The VM change applies (the network step is not blocked), the
	// network stays, and the guest keeps running.
	before := r.domain("web")
	r.apply(g, obs, run)
	if _, err := r.conn().LookupNetworkByName("dmz"); err != nil {
		t.Fatalf("dmz went away: %v", err)
	}
	if after := r.domain("web"); after.ID != before.ID || len(after.Inactive.Devices.Interfaces) != 1 {
		t.Errorf("got ID %d -> %d and %d NICs in the persistent definition, want same ID and 1 NIC", before.ID, after.ID, len(after.Inactive.Devices.Interfaces))
	}
}

// TestFixedAddressIsADHCPHost: a NIC's address becomes a DHCP host entry
// on its network, keyed by a MAC that is declared or derived; changing
// it later is a live network update.
func TestFixedAddressIsADHCPHost(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24", Autostart: true}
	vm := r.vm("keys")
	vm.NICs = []model.NIC{{Network: "lan", Address: "10.77.0.13"}}
	g := r.graph([]*model.VM{vm}, []*model.Network{lan})
	r.converge(g)
	mac := r.domain("keys").Inactive.Devices.Interfaces[0].MAC.Address
	if mac != network.MAC(vm, 0) || !strings.HasPrefix(mac, "52:54:00:") {
		t.Fatalf("got MAC %q, want the derived %q", mac, network.MAC(vm, 0))
	}
	hostsNow := func() []string {
		n, err := r.conn().LookupNetworkByName("lan")
		if err != nil {
			t.Fatal(err)
		}
		defer n.Free()
		x, err := n.GetXMLDesc(0)
		if err != nil {
			t.Fatal(err)
		}
		return network.HostLines(network.HostsOf(network.Must(x)))
	}
	if got, want := hostsNow(), []string{"mac=" + mac + " ip=10.77.0.13 name=keys"}; !slices.Equal(got, want) {
		t.Fatalf("got hosts %q, want %q", got, want)
	}

	vm.NICs[0].Address = "10.77.0.14"
	obs, run := r.diff(g)
	want := []string{"live update network/" + r.host + "/lan [dhcp hosts]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	if got, want := hostsNow(), []string{"mac=" + mac + " ip=10.77.0.14 name=keys"}; !slices.Equal(got, want) {
		t.Fatalf("got hosts %q, want %q", got, want)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want no changes", lines(again.Plan))
	}

	vm.NICs[0].Address = "10.77.0.1"
	obs, _ = r.diff(g)
	if len(obs.Plan.Blocked) == 0 || !strings.Contains(obs.Plan.Blocked[0].Reason, "the first address is the gateway") {
		t.Errorf("got blocked %+v, want the gateway address refused", obs.Plan.Blocked)
	}
}

// TestUndeclaredNetworkIsItsOwnStep: a network the spec drops is a step
// of its own, named as the step that made it, so that --target picks
// its removal alone, and a --target on the network still declared
// leaves it be.
func TestUndeclaredNetworkIsItsOwnStep(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.77.0.0/24", Autostart: true}
	dmz := &model.Network{Tenant: tenant, Name: "dmz", Host: r.host, CIDR: "10.78.0.0/24"}
	r.converge(r.graph(nil, []*model.Network{lan, dmz}))
	// Stopped: the test driver cannot report the leases of a running one.
	n, err := r.conn().LookupNetworkByName("dmz")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Destroy(); err != nil {
		t.Fatal(err)
	}
	n.Free()

	g := r.graph(nil, []*model.Network{lan})
	id := "network/" + r.host + "/dmz"
	if s := g.Step(id); s == nil || s.Undeclared == nil {
		t.Fatalf("no step %s for the undeclared network in %q", id, stepIDs(g))
	}
	obs, _ := r.diff(g)
	if len(obs.Plan.Changes) != 1 || obs.Plan.Changes[0].Step != id {
		t.Fatalf("got %+v, want one change, in step %s", obs.Plan.Changes, id)
	}

	lanOnly, err := g.Targets([]string{"network/" + r.host + "/lan"})
	if err != nil {
		t.Fatal(err)
	}
	if obs, _ := r.diff(lanOnly); obs.Plan.HasChanges() {
		t.Errorf("--target lan plans %q", lines(obs.Plan))
	}
	dmzOnly, err := g.Targets([]string{id})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepIDs(dmzOnly); !slices.Equal(got, []string{id}) {
		t.Fatalf("--target %s keeps %q", id, got)
	}
	obs, run := r.diff(dmzOnly)
	want := []string{"destroy delete " + id + " [active] GATE-NET-DESTROY"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	r.apply(dmzOnly, obs, run, plan.GateNetDestroy)
	if _, err := r.conn().LookupNetworkByName("dmz"); err == nil {
		t.Error("dmz is still defined")
	}
	if _, err := r.conn().LookupNetworkByName("lan"); err != nil {
		t.Errorf("lan went away: %v", err)
	}
	// Gone, it is no step any more.
	if g := r.graph(nil, []*model.Network{lan}); g.Step(id) != nil {
		t.Errorf("step %s is still in the graph after the network went away", id)
	}
}
