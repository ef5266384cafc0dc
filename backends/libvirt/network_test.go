package libvirt

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
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

	// "old" still has a guest on it: refused, whatever the gates.
	obs, _ := r.diff(g)
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "refuses to destroy a network in use") ||
		!strings.Contains(obs.Plan.Blocked[0].Reason, "(user)") {
		t.Fatalf("got blocked %+v, want the in-use refusal naming domain user", obs.Plan.Blocked)
	}
	if obs.Plan.HasChanges() {
		t.Fatalf("got changes %q while refusing, want none", lines(obs.Plan))
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
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "cannot confirm it has no DHCP leases") {
		t.Fatalf("got blocked %+v, want the unknown-leases refusal", obs.Plan.Blocked)
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
	obs, run := r.diff(g)
	want := []string{
		"destroy delete network/" + r.host + "/empty [active] GATE-NET-DESTROY",
		"none create network/" + r.host + "/lan [active,autostart,network]",
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
	got := map[string]string{}
	for _, b := range obs.Plan.Blocked {
		got[b.Step] = b.Reason
	}
	tests := []struct{ step, want string }{
		{"vm/" + r.host + "/web", "carries no site owner element"},
		{"vm/" + r.host + "/db", `belongs to tenant "other"`},
		{"network/" + r.host + "/lan", "carries no site owner element"},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			if !strings.Contains(got[tt.step], tt.want) {
				t.Errorf("got %q, want it to contain %q", got[tt.step], tt.want)
			}
		})
	}
}
