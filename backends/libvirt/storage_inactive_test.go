//go:build cgo && libvirt_dlopen

package libvirt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// stopPool stops a pool and takes its autostart away, as an operator's
// virsh pool-autostart --disable; virsh pool-destroy does: the pool stays
// defined and its volumes' files stay in its directory.
func (r *rig) stopPool(name string) {
	r.t.Helper()
	p, err := r.conn().LookupStoragePoolByName(name)
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Free()
	if err := p.SetAutostart(false); err != nil {
		r.t.Fatal(err)
	}
	if err := p.Destroy(); err != nil {
		r.t.Fatal(err)
	}
}

// poolActive reads whether a pool runs.
func (r *rig) poolActive(name string) bool {
	r.t.Helper()
	p, err := r.conn().LookupStoragePoolByName(name)
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Free()
	active, err := p.IsActive()
	if err != nil {
		r.t.Fatal(err)
	}
	return active
}

// inactivePoolRig converges a VM with a blank disk, an overlay on a
// declared image and a cloud-init seed in a declared pool, then stops
// the pool. It returns the VM (for the test to change) and the pool.
func inactivePoolRig(t *testing.T) (*rig, *model.Pool, *model.VM) {
	r, pool := storageRig(t)
	src := filepath.Join(t.TempDir(), "base.raw")
	if err := os.WriteFile(src, pattern(1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	vm := r.stopped("web", pool,
		model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20},
		model.Disk{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: "base.raw"})
	vm.Images = []*model.Image{{Pool: pool, Name: "base.raw", Source: src}}
	vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"}
	r.converge(r.graph([]*model.VM{vm}, nil))
	r.stopPool("images")
	return r, pool, vm
}

// TestInactivePoolVolumesReadAfterItStarts: a declared pool that exists
// but is not active hides its volumes, so the plan must not claim to
// create them (they are there, in its directory): it shows them as read
// after the pool starts, and a diff leaves the pool stopped. The first
// apply starts the pool, reads the volumes then, makes nothing again
// and leaves what the disks hold; the next plan is empty.
func TestInactivePoolVolumesReadAfterItStarts(t *testing.T) {
	r, pool, vm := inactivePoolRig(t)
	data := filepath.Join(pool.Path, "web-data")
	marker := []byte("the guest's data")
	f, err := os.OpenFile(data, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(marker, 4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	if r.poolActive("images") {
		t.Fatal("site diff started the pool: a diff must not change anything")
	}
	for _, c := range obs.Plan.Changes {
		if strings.HasPrefix(c.Key, "volume/") && c.Action == plan.ActionCreate {
			t.Errorf("plan creates %s, which exists in the stopped pool: %s", c.Key, line(c))
		}
	}
	var seed string
	for _, c := range obs.Plan.Changes {
		if strings.Contains(c.Key, "/seed-") {
			seed = c.Key
		}
	}
	wantLines(t, obs,
		"none update pool/qemu:///session/images [active,autostart]",
		"none update volume/qemu:///session/images/base.raw [volume]",
		"none update "+seed+" [volume]",
		"none update volume/qemu:///session/images/web-data [volume]",
		"none update volume/qemu:///session/images/web-root [volume]",
	)
	for _, c := range obs.Plan.Changes {
		if strings.HasPrefix(c.Key, "volume/") && !strings.Contains(c.Reason, "read after the pool starts") {
			t.Errorf("%s: reason %q does not say the volume is read after the pool starts", c.Key, c.Reason)
		}
	}

	rep := r.apply(g, obs, run)
	for _, s := range rep.Steps {
		if s.Status != engine.StatusApplied && s.Status != engine.StatusUnchanged {
			t.Errorf("step %s: %s %s", s.Step, s.Status, s.Reason)
		}
	}
	if !r.poolActive("images") {
		t.Error("apply did not start the pool")
	}
	got, err := os.ReadFile(data)
	if err != nil || len(got) < 4096+len(marker) || string(got[4096:4096+len(marker)]) != string(marker) {
		t.Errorf("the disk's data is gone (err %v): the disk was made again", err)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestInactivePoolMissingVolumesMadeAfterItStarts: volumes that really
// are missing from a stopped pool are made by the same first apply, once
// the pool runs and they were read.
func TestInactivePoolMissingVolumesMadeAfterItStarts(t *testing.T) {
	r, pool, vm := inactivePoolRig(t)
	vm.Disks = append(vm.Disks, model.Disk{Pool: "images", Name: "web-more", SizeBytes: 1 << 20})
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	for _, c := range obs.Plan.Changes {
		if strings.HasPrefix(c.Key, "volume/") && c.Action == plan.ActionCreate {
			t.Errorf("plan creates %s, whose existence could not be read: %s", c.Key, line(c))
		}
	}
	r.apply(g, obs, run)
	if _, err := os.Stat(filepath.Join(pool.Path, "web-more")); err != nil {
		t.Errorf("the missing disk was not made: %v", err)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestInactivePoolKeepsDiskGates: a disk in a stopped pool that turns
// out smaller than the spec once the pool runs is grown only behind
// GATE-VM-DISK-RESIZE, which the plan shown could not ask for: the
// apply starts the pool, changes no volume, and says to run site diff
// again; that diff asks for the gate.
func TestInactivePoolKeepsDiskGates(t *testing.T) {
	r, pool, vm := inactivePoolRig(t)
	vm.Disks[0].SizeBytes = 2 << 20
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	if gates := obs.Plan.Gates(); len(gates) > 0 {
		t.Fatalf("gates %v before the volume could be read", gates)
	}
	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	var vmStep engine.StepReport
	for _, s := range rep.Steps {
		if s.Step == "vm/qemu:///session/web" {
			vmStep = s
		}
	}
	t.Logf("VM step %s: %s", vmStep.Status, vmStep.Reason)
	if want := (hint.Hint{Kind: hint.ReviewThenAcknowledge, Gate: string(plan.GateVMDiskResize)}); vmStep.Status != engine.StatusFailed || vmStep.Hint != want {
		t.Fatalf("VM step: %s %q with hint %+v, want it failed with hint %+v (site diff, then %s)", vmStep.Status, vmStep.Reason, vmStep.Hint, want, plan.GateVMDiskResize)
	}
	if st, err := os.Stat(filepath.Join(pool.Path, "web-data")); err != nil || st.Size() != 1<<20 {
		t.Errorf("web-data changed without its gate: %v, %d bytes", err, st.Size())
	}
	again, _ := r.diff(g)
	wantLines(t, again, "next-boot update volume/qemu:///session/images/web-data [size] GATE-VM-DISK-RESIZE")
}

// TestNewPoolKeepsFilesInItsDirectory: a declared pool that does not
// exist is made on a directory that already holds a disk's file (a pool
// undefined by hand, its files kept): the apply that makes the pool reads
// its volumes once it runs, takes the file for the disk it is and keeps
// its data, rather than fail creating it over.
func TestNewPoolKeepsFilesInItsDirectory(t *testing.T) {
	r, pool := storageRig(t)
	if err := os.MkdirAll(pool.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	data := pattern(1 << 20)
	if err := os.WriteFile(filepath.Join(pool.Path, "web-data"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	g := r.graph([]*model.VM{r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if got, err := os.ReadFile(filepath.Join(pool.Path, "web-data")); err != nil || string(got) != string(data) {
		t.Errorf("the disk's file changed (err %v)", err)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}
