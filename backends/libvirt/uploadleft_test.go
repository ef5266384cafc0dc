package libvirt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/compiler/model"
)

// seedVM is a stopped VM web with one blank disk in pool and cloud-init
// user data; its seed goes into pool too.
func (r *rig) seedVM(pool *model.Pool, userData string) *model.VM {
	vm := r.stopped("web", pool, model.Disk{Pool: pool.Name, Name: "web-root", SizeBytes: 1 << 20})
	vm.CloudInit = &model.CloudInit{UserData: userData}
	return vm
}

// seedOf is the seed VM web gets from userData.
func seedOf(userData string) *seed.Seed {
	return seed.Build(seed.Input{Hostname: "web", UserData: userData})
}

// TestSeedMarkerNamesItsTenant: a seed's upload marker names the tenant
// whose VM the seed is, so that a later run of that tenant can tell the
// upload it left from another tenant's.
func TestSeedMarkerNamesItsTenant(t *testing.T) {
	r, pool := storageRig(t)
	t.Cleanup(func() { uploadStage = func(string) {} })
	r.makePool(pool)
	s := seedOf("#cloud-config\n")
	var note markerNote
	var read error
	uploadStage = func(stage string) {
		if stage != "create" {
			return
		}
		var b []byte
		if b, read = os.ReadFile(filepath.Join(pool.Path, markerName(s.Name, 0))); read == nil {
			note = parseNote(b)
		}
	}
	g := r.graph([]*model.VM{r.seedVM(pool, "#cloud-config\n")}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if read != nil || note.Tenant != tenant {
		t.Errorf("the marker of the seed upload names tenant %q (read: %v), want %q", note.Tenant, read, tenant)
	}
}
