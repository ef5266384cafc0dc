//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// TestRebaseRefusedUnderRunningGuest: a running guest's disk is never
// deleted under it; the plan says how to get there (stop it first).
func TestRebaseRefusedUnderRunningGuest(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "old.raw", pattern(1<<20))
	r.upload("images", "new.raw", pattern(1 << 20)[1:])
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: "old.raw"})
	vm.Running = true
	r.converge(r.graph([]*model.VM{vm}, nil))
	if !r.domain("web").Running {
		t.Fatal("guest does not run")
	}
	vm.Disks[0].Base = "new.raw"
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	if len(obs.Plan.Blocked) != 1 {
		t.Fatalf("blocked: got %+v, want the VM step", obs.Plan.Blocked)
	}
	for _, w := range []string{"never replaces a disk under a running guest", `made again from base "new.raw" (it was made from "old.raw")`} {
		if !strings.Contains(obs.Plan.Blocked[0].Reason, w) {
			t.Errorf("reason %q does not contain %q", obs.Plan.Blocked[0].Reason, w)
		}
	}
	// Stop it first (GATE-VM-STOP), rebase, start it again.
	want := hint.Hint{Kind: hint.StopFirst, Gate: "GATE-VM-STOP", Spec: "GATE-VM-DISK-REBASE"}.ToJSON()
	if h := obs.Plan.Blocked[0].Hint; h == nil || *h != *want {
		t.Errorf("hint %+v, want %+v", h, want)
	}
}

// TestForeignVolumeNotRebased: a volume site did not make is never
// replaced to give it a base.
func TestForeignVolumeNotRebased(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "base.raw", pattern(1<<20))
	r.upload("images", "web-root", pattern(2<<20))
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: "base.raw"})
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "site did not make it from base base.raw") {
		t.Fatalf("blocked: got %+v, want the foreign volume refused", obs.Plan.Blocked)
	}
}

// TestDeclaredPoolStarted: a declared pool that exists stopped and
// without autostart is started and autostarted, not redefined; the disk
// in it is read once it runs (then made, as it is missing).
func TestDeclaredPoolStarted(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	p, err := r.conn().LookupStoragePoolByName("images")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	if err := p.SetAutostart(false); err != nil {
		t.Fatal(err)
	}
	if err := p.Destroy(); err != nil {
		t.Fatal(err)
	}
	g := r.graph([]*model.VM{r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"none update pool/qemu:///session/images [active,autostart]",
		"none create vm/qemu:///session/web [autostart,disks,memory,running,vcpus]",
		"none update volume/qemu:///session/images/web-data [volume]",
	)
	r.apply(g, obs, run)
	wantPoolRunning(t, p)
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestImageUploadedOnceBeforeItsDisks: on a host with nothing, one apply
// makes the declared pool, uploads the declared images (a qcow2 made by
// qemu-img and a raw file) and makes an overlay on one and a copy of the
// other; the next plan is empty, even after the file changed (an image
// is uploaded once).
func TestImageUploadedOnceBeforeItsDisks(t *testing.T) {
	r, pool := storageRig(t)
	dir := t.TempDir()
	qcow := filepath.Join(dir, "os.qcow2")
	qemuImg, _ := lookPathQemuImg()
	if out, err := exec.Command(qemuImg, "create", "-f", "qcow2", qcow, "8M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v\n%s", err, out)
	}
	raw := filepath.Join(dir, "data.raw")
	if err := os.WriteFile(raw, pattern(1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	vm := r.stopped("web", pool,
		model.Disk{Pool: "images", Name: "web-root", SizeBytes: 16 << 20, Base: "os.qcow2"},
		model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20, Base: "data.raw", Clone: true})
	vm.Images = []*model.Image{{Pool: pool, Name: "os.qcow2", Source: qcow}, {Pool: pool, Name: "data.raw", Source: raw}}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"none create pool/qemu:///session/images [active,autostart,path,type]",
		"none create volume/qemu:///session/images/data.raw [format,size]",
		"none create volume/qemu:///session/images/os.qcow2 [format,size]",
		"none create vm/qemu:///session/web [autostart,disks,memory,running,vcpus]",
		"none create volume/qemu:///session/images/web-data [base,size]",
		"none create volume/qemu:///session/images/web-root [base,size]",
	)
	r.apply(g, obs, run)
	if def := r.volumeDef("images", "os.qcow2"); def.Target.Format.Type != "qcow2" || def.Capacity.Value != 8<<20 {
		t.Errorf("uploaded qcow2: format %s capacity %d, want qcow2 of 8 MiB", def.Target.Format.Type, def.Capacity.Value)
	}
	if b := r.volumeDef("images", "web-root").BackingStore; b == nil || b.Path != filepath.Join(pool.Path, "os.qcow2") || b.Format.Type != "qcow2" {
		t.Errorf("overlay backing store %+v, want the uploaded qcow2", b)
	}
	got, err := os.ReadFile(filepath.Join(pool.Path, "web-data"))
	if err != nil || !bytes.Equal(got, pattern(1<<20)) {
		t.Errorf("copy of the uploaded raw image differs from the file (err %v)", err)
	}
	if err := os.WriteFile(raw, pattern(2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}
