//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestNameTakenMeanwhileIsRefusedByLibvirt: a VM or network name
// another tenant's apply takes between this run's plan (which found it
// free) and its define is refused by libvirt itself: site's definitions
// carry no UUID, so libvirt gives the define a new one and refuses a
// name another domain or network has with another UUID ("already
// exists with uuid"). The other tenant's domain and network are left as
// they were. So the define needs no check of its own here.
func TestNameTakenMeanwhileIsRefusedByLibvirt(t *testing.T) {
	s := libvirttest.StartSession(t)
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	other := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	web := r.vm("web")
	web.Running = false
	lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: "10.92.0.0/24", Mode: model.NetIsolated}
	g := r.graph([]*model.VM{web}, []*model.Network{lan})
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	theirs := other.vm("web")
	theirs.Running = false
	theirs.MemoryBytes = 96 << 20
	other.converge(other.othersGraph(theirs)) // between the plan and the apply
	othersNetwork(t, other.conn(), "lan", "10.93.0.1", false)
	domXML, _ := other.domain("web").Inactive.Marshal()
	nw, err := other.conn().LookupNetworkByName("lan")
	if err != nil {
		t.Fatal(err)
	}
	netXML, _ := nw.GetXMLDesc(0)
	nw.Free()

	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{graph.VMStepID(r.host, "web"), graph.NetworkStepID(r.host, "lan")} {
		step := stepReport(t, rep, id)
		if step.Status != engine.StatusFailed || !strings.Contains(step.Reason, "already exists with uuid") {
			t.Errorf("step %s %s (%s), want failed: libvirt refuses a name another has", id, step.Status, step.Reason)
		}
	}
	if got, _ := other.domain("web").Inactive.Marshal(); got != domXML {
		t.Errorf("the other tenant's domain web changed:\n%s\nwas\n%s", got, domXML)
	}
	nw, err = other.conn().LookupNetworkByName("lan")
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Free()
	if got, _ := nw.GetXMLDesc(0); got != netXML {
		t.Errorf("the other tenant's network lan changed:\n%s\nwas\n%s", got, netXML)
	}
}
