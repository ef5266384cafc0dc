//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestSystemNetworksDefinedAtOnce: networks of one apply that name no
// bridge each get a bridge of their own and start. libvirt picks the
// first free virbrN at define time, and two defines at once picked the
// same one: the second network's start failed "creating bridge
// interface virbr0: File exists" (seen in TestSystemIsolatedNetwork
// under CI); the driver now defines one network at a time.
func TestSystemNetworksDefinedAtOnce(t *testing.T) {
	r, s := systemRig(t)
	r.eng.Parallelism = 6
	var nets []*model.Network
	for i := range 6 {
		nets = append(nets, &model.Network{Tenant: tenant, Name: s.Name(fmt.Sprintf("many%d", i)), Host: r.host, Mode: model.NetNAT, CIDR: s.CIDR(t)})
	}
	g := r.graph(nil, nets)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	bridges := map[string]string{}
	for _, n := range nets {
		br, _ := wantBridgeUp(t, r, n.Name, strings.TrimSuffix(n.CIDR, "0/24")+"1/24")
		if other, ok := bridges[br]; ok {
			t.Errorf("networks %s and %s share bridge %s", other, n.Name, br)
		}
		bridges[br] = n.Name
	}
}
