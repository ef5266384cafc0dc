//go:build cgo && libvirt_dlopen

package libvirt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestStepCountsOnlyItsOwnCalls: steps applied at once on one driver
// each report the calls they make, the same count as when the run
// applies one step at a time. A pool made by its step, the images
// uploaded into it and into a pool that runs already, and the VM made
// from them run with parallelism 4: the pool and the second image
// beside the first image's upload. The counts once read the
// driver-wide counter before and after each step, so every step also
// counted whatever the others called meanwhile. (The VM comes last: a
// step that plans again at apply time observes the host, and the
// domains it finds there are its calls too.)
func TestStepCountsOnlyItsOwnCalls(t *testing.T) {
	counts := func(parallelism int) map[string]int {
		r, images := storageRig(t)
		r.eng.Parallelism = parallelism
		r.makePool(images)
		more := &model.Pool{HostName: images.HostName, Host: images.Host, Name: "more", Type: "dir", Path: filepath.Join(filepath.Dir(images.Path), "more")}
		vm := r.stopped("web", images)
		vm.Pools = []*model.Pool{images, more}
		for _, p := range vm.Pools {
			src := filepath.Join(t.TempDir(), "base.raw")
			if err := os.WriteFile(src, pattern(16<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			vm.Disks = append(vm.Disks, model.Disk{Pool: p.Name, Name: "root-" + p.Name, SizeBytes: 16 << 20, Base: "base.raw"})
			vm.Images = append(vm.Images, &model.Image{Pool: p, Name: "base.raw", Source: src})
		}
		vms := []*model.VM{vm}
		g := r.graph(vms, nil)
		obs, run := r.diff(g)
		rep := r.apply(g, obs, run)
		got := map[string]int{}
		for _, s := range rep.Steps {
			got[s.Step] = s.Requests
		}
		return got
	}
	alone, together := counts(1), counts(4)
	if len(alone) < 4 {
		t.Fatalf("applied steps %v, want a pool, two images and a VM", alone)
	}
	t.Logf("alone: %v", alone)
	for step, want := range alone {
		if got := together[step]; got != want {
			t.Errorf("%s: %d requests applied beside the others, %d alone", step, got, want)
		}
	}
}
