//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestNetworkModeChangeOnTestDriver: an inactive network changes mode by
// a define alone; an active one whose DHCP leases the test driver
// cannot report is refused (not knowing is not wanting), but its
// autostart, host side only, is still set.
func TestNetworkModeChangeOnTestDriver(t *testing.T) {
	// ownedNetworkXML has no <forward>: both networks are isolated.
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Networks:   []string{ownedNetworkXML("idle", "virbr20", "10.20.0.1"), ownedNetworkXML("busy", "virbr21", "10.21.0.1")},
		Interfaces: []string{`<interface type="bridge" name="br0"><start mode="onboot"/><bridge stp="off"><interface type="ethernet" name="eth0"/></bridge></interface>`},
	}), Options{})
	idle := &model.Network{Tenant: tenant, Name: "idle", Host: r.host, Mode: model.NetBridge, Bridge: "br0"}
	busy := &model.Network{Tenant: tenant, Name: "busy", Host: r.host, Mode: model.NetNAT, CIDR: "10.21.0.0/24", Autostart: true}
	n, err := r.conn().LookupNetworkByName("idle")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Destroy(); err != nil {
		t.Fatal(err)
	}
	n.Free()
	obs, _ := r.diff(r.graph(nil, []*model.Network{idle, busy}))
	got := map[string]string{}
	for _, c := range obs.Plan.Changes {
		got[c.Key] += line(c) + " " + c.Reason + "\n"
	}
	if b := got["network/"+r.host+"/busy"]; !strings.Contains(b, "refused update network/"+r.host+"/busy [in use,network] mode isolated → nat") ||
		!strings.Contains(b, "refused for now: site cannot confirm it has no DHCP leases") ||
		!strings.Contains(b, "live update network/"+r.host+"/busy [autostart]") {
		t.Errorf("busy: got\n%s want a refused mode change, and autostart set all the same", b)
	}
	if i := got["network/"+r.host+"/idle"]; !strings.Contains(i, "none update network/"+r.host+"/idle [network] network definition") {
		t.Errorf("idle: got\n%s want a plain define", i)
	}
}
