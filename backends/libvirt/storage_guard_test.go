package libvirt

import (
	"strings"
	"testing"

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
	for _, w := range []string{"never replaces a disk under a running guest", "running: false", "GATE-VM-STOP", `made again from base "new.raw" (it was made from "old.raw")`} {
		if !strings.Contains(obs.Plan.Blocked[0].Reason, w) {
			t.Errorf("reason %q does not contain %q", obs.Plan.Blocked[0].Reason, w)
		}
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
// without autostart is started and autostarted, not redefined.
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
		"none create volume/qemu:///session/images/web-data [size]",
	)
	r.apply(g, obs, run)
	active, _ := p.IsActive()
	auto, _ := p.GetAutostart()
	if !active || !auto {
		t.Errorf("pool: active %v autostart %v, want both", active, auto)
	}
}
