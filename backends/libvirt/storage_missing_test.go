//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestMissingPoolOrBaseSaysWhereAndWhatExists: a typo in a disk's pool
// or base ("defualt", "bigg.raw") blocks the VM's step with the spec's
// file:line:col of the name and the names the host has, so the user
// sees the typo without running virsh, and the one name near it, if
// any (spelling.Nearest), as "did you mean".
func TestMissingPoolOrBaseSaysWhereAndWhatExists(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "big.raw", pattern(1<<20))
	at := model.Pos{File: "tenants/lab.cue", Line: 9, Col: 12}
	for _, tt := range []struct {
		name string
		disk model.Disk
		want []string
	}{
		{"pool", model.Disk{Pool: "defualt", Name: "web-root", SizeBytes: 1 << 20, Pos: at},
			[]string{"tenants/lab.cue:9:12: ", `storage pool "defualt" does not exist on qemu:///session`, "pools there: images"}},
		{"pool near", model.Disk{Pool: "imagse", Name: "web-root", SizeBytes: 1 << 20, Pos: at},
			[]string{"tenants/lab.cue:9:12: ", "pools there: images (did you mean images?)"}},
		{"base", model.Disk{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: "bigg.raw", BasePos: at},
			[]string{"tenants/lab.cue:9:12: ", "base volume bigg.raw, which is not in pool images", "which is not in pool images on qemu:///session (host local), which holds big.raw (did you mean big.raw?); nothing was changed"}},
		{"base far", model.Disk{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: "debian.qcow2", BasePos: at},
			[]string{"which holds big.raw; nothing was changed"}},
		// A disk smaller than its base: the size to raise is the disk's.
		{"smaller than its base", model.Disk{Pool: "images", Name: "web-root", SizeBytes: 512 << 10, Base: "big.raw", Pos: at},
			[]string{"tenants/lab.cue:9:12: ", "a disk is at least as large as its base"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vm := r.stopped("web", pool, tt.disk)
			obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
			if len(obs.Plan.Blocked) != 1 {
				t.Fatalf("blocked: got %+v, want the VM step", obs.Plan.Blocked)
			}
			for _, w := range tt.want {
				if !strings.Contains(obs.Plan.Blocked[0].Reason, w) {
					t.Errorf("reason %q does not contain %q", obs.Plan.Blocked[0].Reason, w)
				}
			}
		})
	}
}
