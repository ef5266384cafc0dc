//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// procNetworkDefineXML is REMOTE_PROC_NETWORK_DEFINE_XML, for
// holdingProxy.
const procNetworkDefineXML = 41

// othersNetwork defines (and, with start, starts) a NAT network of
// tenant other on c, as that tenant's apply would.
func othersNetwork(t *testing.T, c *libvirt.Connect, name, gw string, start bool) {
	t.Helper()
	x := `<network><name>` + name + `</name><forward mode="nat"/><ip address="` + gw + `" prefix="16"/>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="other"/></metadata></network>`
	nw, err := c.NetworkDefineXML(x)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Free()
	if start {
		if err := nw.Create(); err != nil {
			t.Fatal(err)
		}
	}
}

// wantNetworks fails the test unless c has network keep and not gone.
func wantNetworks(t *testing.T, c *libvirt.Connect, keep, gone string) {
	t.Helper()
	if nw, err := c.LookupNetworkByName(gone); err == nil {
		nw.Free()
		t.Errorf("network %s is defined: it overlaps %s", gone, keep)
	}
	nw, err := c.LookupNetworkByName(keep)
	if err != nil {
		t.Fatalf("the other tenant's network %s is gone: %v", keep, err)
	}
	nw.Free()
}

// TestNetworkOverlapMadeMeanwhileIsRefused: each tenant's apply holds
// its own lock, so two tenants' applies run at once on a host. The plan
// refuses a network overlapping the host's others, but one another
// tenant's apply defined between this run's plan and its define was not
// seen: both plans passed and the host had two networks routing the same
// addresses. The define checks the host's networks again right before
// it acts, and defines nothing.
func TestNetworkOverlapMadeMeanwhileIsRefused(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.90.0.0/24", Autostart: true}
	g := r.graph(nil, []*model.Network{lan})
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	othersNetwork(t, r.conn(), "other-lan", "10.90.0.1", true) // between the plan and the apply

	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	failedSaying(t, rep, "network/"+r.host+"/lan", "overlaps network other-lan", `tenant "other"`, "after this run's plan", "defined nothing")
	wantNetworks(t, r.conn(), "other-lan", "lan")
}

// TestNetworkOverlapDefinedAtOnceIsUndone: two applies that check the
// host's networks right before they define theirs may both check before
// either defines. So a define checks again after it acts: the later of
// two defines sees the earlier and takes its own network out again
// (both may step back; never both stay). The proxy holds this run's
// define while the other tenant's is made.
func TestNetworkOverlapDefinedAtOnceIsUndone(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="), procNetworkDefineXML)
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: uri}})
	other := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.91.0.0/24", Mode: model.NetIsolated}
	g := r.graph(nil, []*model.Network{lan})
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	rep := r.applyHeldWhile(g, obs, run, held, func() { othersNetwork(t, other.conn(), "other-lan", "10.91.0.1", false) })
	failedSaying(t, rep, "network/"+r.host+"/lan", "overlaps network other-lan", "undefined", "site diff")
	wantNetworks(t, other.conn(), "other-lan", "lan")
}

// TestNetworkOverlapOnUpdateIsPutBack: a cidr change writes the
// network's definition anew; found overlapping another tenant's network
// right after, the define puts back the definition it replaced.
func TestNetworkOverlapOnUpdateIsPutBack(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="), procNetworkDefineXML)
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: uri}})
	other := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	// The tenant's network as an earlier apply defined it (a session
	// daemon cannot start it: it makes no bridges).
	nw, err := other.conn().NetworkDefineXML(`<network><name>lan</name><ip address="10.94.0.1" prefix="24"/>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="` + tenant + `"/></metadata></network>`)
	if err != nil {
		t.Fatal(err)
	}
	was, _ := nw.GetXMLDesc(libvirt.NETWORK_XML_INACTIVE)
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.95.0.0/24", Mode: model.NetIsolated}
	g := r.graph(nil, []*model.Network{lan})
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	rep := r.applyHeldWhile(g, obs, run, held, func() { othersNetwork(t, other.conn(), "other-lan", "10.95.0.1", false) })
	failedSaying(t, rep, "network/"+r.host+"/lan", "put back the definition it replaced")
	if got, _ := nw.GetXMLDesc(libvirt.NETWORK_XML_INACTIVE); got != was {
		t.Errorf("lan's definition is\n%s\nwant it put back to\n%s", got, was)
	}
	nw.Free()
}
