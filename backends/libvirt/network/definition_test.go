//go:build cgo && libvirt_dlopen

package network

import (
	"path/filepath"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/model"
)

// TestApplyNetworkModes renders each mode's definition, written fresh
// and over a definition in another mode (what a mode change defines),
// against golden files: a NAT or isolated network keeps libvirt's own
// bridge but drops a host bridge a bridge network named; a bridge
// network has no address, MAC or DHCP.
func TestApplyNetworkModes(t *testing.T) {
	natLive := `<network><name>n</name><uuid>0b9ad4a4-8d1f-4e7e-9f5f-2a1d1b9c9e11</uuid><forward mode="nat"/>` +
		`<bridge name="virbr5" stp="on" delay="0"/><mac address="52:54:00:aa:bb:cc"/>` +
		`<ip address="10.9.0.1" prefix="24"><dhcp><range start="10.9.0.2" end="10.9.0.254"/></dhcp></ip></network>`
	bridgeLive := `<network><name>n</name><uuid>0b9ad4a4-8d1f-4e7e-9f5f-2a1d1b9c9e11</uuid><forward mode="bridge"/><bridge name="br0"/></network>`
	tests := []struct {
		name string
		old  string // "" for a new network
		nw   model.Network
	}{
		{"nat", "", model.Network{Name: "n", CIDR: "10.77.0.0/24"}},
		{"isolated", "", model.Network{Name: "n", Mode: model.NetIsolated, CIDR: "10.77.0.0/24"}},
		{"bridge", "", model.Network{Name: "n", Mode: model.NetBridge, Bridge: "br0"}},
		{"nat_to_isolated", natLive, model.Network{Name: "n", Mode: model.NetIsolated, CIDR: "10.9.0.0/24"}},
		{"nat_to_bridge", natLive, model.Network{Name: "n", Mode: model.NetBridge, Bridge: "br0"}},
		{"bridge_to_nat", bridgeLive, model.Network{Name: "n", Mode: model.NetNAT, CIDR: "10.9.0.0/24"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := &libvirtxml.Network{Name: "n"}
			if tt.old != "" {
				def = Must(tt.old)
			}
			tt.nw.Tenant = "t1"
			if err := Apply(def, &tt.nw, &ownership.Owner{Tenant: "t1"}, "", nil); err != nil {
				t.Fatal(err)
			}
			x, err := def.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if got := ModeOf(def); got != tt.nw.ModeOrNAT() {
				t.Errorf("ModeOf = %q, want %q", got, tt.nw.ModeOrNAT())
			}
			shape := Shape(def, &ownership.Owner{Tenant: "t1"})
			golden.Check(t, filepath.Join("testdata", "netdef", tt.name+".xml"), []byte(shape+"\n"+x+"\n"))
			if strings.Contains(x, "br0") != (tt.nw.Mode == model.NetBridge) {
				t.Errorf("host bridge br0 in a %s network's definition: %v", tt.nw.ModeOrNAT(), strings.Contains(x, "br0"))
			}
		})
	}
}
