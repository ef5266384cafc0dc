//go:build cgo && libvirt_dlopen

package vmstep

import (
	"maps"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestJournalImageFields: what the journal keeps of a VM the spec
// declares is what the same fields read from the definition the planner
// makes of it, so an apply's After compares with the next run's Before
// as equal when nothing changed in between.
func TestJournalImageFields(t *testing.T) {
	vm := &model.VM{Tenant: "lab", Name: "web", Host: "test:///default", VCPUs: 2, MemoryBytes: 1<<30 + 1, Autostart: true}
	if got, want := vmWanted(vm), map[string]string{"memory": "1073742848", "vcpus": "2", "autostart": "true", "running": "false"}; !maps.Equal(got, want) {
		t.Errorf("vmWanted: %v, want %v (memory in whole KiB, as libvirt keeps it)", got, want)
	}
}
