//go:build cgo && libvirt_dlopen

package netstep

import (
	"maps"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestJournalImageFields: what the journal keeps of a network the spec
// declares is what the same fields read from the definition the planner
// makes of it, so an apply's After compares with the next run's Before
// as equal when nothing changed in between.
func TestJournalImageFields(t *testing.T) {
	nets := []struct {
		nw   *model.Network
		want map[string]string
	}{
		{&model.Network{Name: "lan", CIDR: "10.9.0.7/24"}, map[string]string{"mode": "nat", "cidr": "10.9.0.0/24", "autostart": "false"}},
		{&model.Network{Name: "lan", Mode: model.NetIsolated, CIDR: "10.9.0.0/16", Autostart: true}, map[string]string{"mode": "isolated", "cidr": "10.9.0.0/16", "autostart": "true"}},
		{&model.Network{Name: "lan", Mode: model.NetBridge, Bridge: "br0"}, map[string]string{"mode": "bridge", "bridge": "br0", "autostart": "false"}},
	}
	for _, tt := range nets {
		if got := netWanted(tt.nw); !maps.Equal(got, tt.want) {
			t.Errorf("netWanted(%+v): %v, want %v", tt.nw, got, tt.want)
		}
	}
}
