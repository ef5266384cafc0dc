//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestNetworkOverlappingTheHostsIsRefused: vet compares the networks the
// tenants' specs declare, but not the host's others: a tenant's network
// over libvirt's default network (virbr0, 192.168.122.0/24), or one the
// operator made, was planned, and its guests took the addresses that
// network routes. The plan refuses it, naming that network; a network of
// the tenant's own that its spec dropped (a rename) is its removal's to
// free, in the same run.
func TestNetworkOverlappingTheHostsIsRefused(t *testing.T) {
	net := func(name, bridge, addr, owner string) string {
		meta := ""
		if owner != "" {
			meta = `<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="` + owner + `"/></metadata>`
		}
		return `<network><name>` + name + `</name><forward mode="nat"/><bridge name="` + bridge + `"/><ip address="` + addr + `" netmask="255.255.255.0"/>` + meta + `</network>`
	}
	fixture := libvirttest.Fixture{Networks: []string{
		net("default", "virbr0", "192.168.122.1", ""),
		net("other-lan", "virbr30", "10.80.0.1", "other"),
		net("old", "virbr31", "10.81.0.1", tenant),
	}}
	tests := []struct {
		cidr string
		want string // "" when planned
	}{
		{"192.168.122.0/24", `network lan on HOST: cidr 192.168.122.0/24 overlaps network default on the host (192.168.122.1/24, bridge virbr0), which carries no site owner element (libvirt's default network, or the operator's own), so its guests would take addresses that network routes; pick a prefix no network on the host uses`},
		{"192.168.0.0/16", `cidr 192.168.0.0/16 overlaps network default on the host (192.168.122.1/24, bridge virbr0)`},
		{"10.80.0.128/25", `network lan on HOST: cidr 10.80.0.128/25 overlaps network other-lan on the host (10.80.0.1/24, bridge virbr30), which is tenant "other"'s, so its guests would take addresses that network routes; pick a prefix no network on the host uses`},
		{"10.81.0.0/24", ""},
		{"10.77.0.0/24", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cidr, func(t *testing.T) {
			r := newRig(t, libvirttest.TestURI(t, fixture), Options{})
			lan := &model.Network{Tenant: tenant, Name: "lan", Host: r.host, CIDR: tt.cidr}
			obs, _ := r.diff(r.graph(nil, []*model.Network{lan}))
			var got string
			for _, b := range obs.Plan.Blocked {
				if b.Step == "network/"+r.host+"/lan" {
					got = b.Reason
				}
			}
			want := strings.ReplaceAll(tt.want, "HOST", r.host)
			switch {
			case want == "" && got != "":
				t.Errorf("refused: %s", got)
			case want != "" && !strings.Contains(got, want):
				t.Errorf("got %q, want it to contain %q; plan %q", got, want, lines(obs.Plan))
			}
		})
	}
}
