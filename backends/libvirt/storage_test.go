//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// storageRig starts a session libvirtd with no pool at all: the tests
// declare the pool "images" in its directory and let site create it.
// libvirt makes overlays and copies with qemu-img.
func storageRig(t *testing.T) (*rig, *model.Pool) {
	t.Helper()
	s := libvirttest.StartSession(t)
	if _, err := lookPathQemuImg(); err != nil {
		libvirttest.Need(t, "qemu-img not found: install qemu-utils (libvirt runs it to make qcow2 overlays and copies)")
	}
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	// Guests are killed with the daemon; stop them first so libvirtd
	// exits promptly.
	t.Cleanup(func() {
		doms, _ := r.conn().ListAllDomains(0)
		for _, d := range doms {
			_ = d.Destroy()
			_ = d.Free()
		}
	})
	return r, &model.Pool{HostName: "local", Host: sessionHost, Name: "images", Type: "dir", Path: filepath.Join(s.Dir, "images")}
}

func lookPathQemuImg() (string, error) {
	for _, p := range []string{"/usr/bin/qemu-img", "/usr/local/bin/qemu-img"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// stopped is a VM that is defined, never started: disks are made and
// attached without booting anything.
func (r *rig) stopped(name string, pool *model.Pool, disks ...model.Disk) *model.VM {
	vm := r.vm(name)
	vm.Running = false
	vm.HostName = pool.HostName
	vm.Disks = disks
	vm.Pools = []*model.Pool{pool}
	return vm
}

// makePool defines, builds, starts and autostarts a pool by hand, as an operator
// does before uploading images into it.
func (r *rig) makePool(p *model.Pool) {
	r.t.Helper()
	pool, err := r.conn().StoragePoolDefineXML(`<pool type="dir"><name>`+p.Name+`</name><target><path>`+p.Path+`</path></target></pool>`, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	defer pool.Free()
	if err := pool.Build(0); err != nil {
		r.t.Fatal(err)
	}
	if err := pool.Create(0); err != nil {
		r.t.Fatal(err)
	}
	if err := pool.SetAutostart(true); err != nil {
		r.t.Fatal(err)
	}
}

// upload puts an image volume into a pool, as an operator does with
// virsh vol-create-as and vol-upload.
func (r *rig) upload(pool, name string, data []byte) {
	r.t.Helper()
	a := &storage.Writer{Set: r.d.Set, C: r.conn(), Host: r.host}
	if err := a.CreateVolume(pool, name, uint64(len(data)), data); err != nil {
		r.t.Fatal(err)
	}
}

// volume reads a volume's definition back.
func (r *rig) volumeDef(pool, name string) *libvirtxml.StorageVolume {
	r.t.Helper()
	p, err := r.conn().LookupStoragePoolByName(pool)
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Free()
	if err := p.Refresh(0); err != nil {
		r.t.Fatal(err)
	}
	v, err := p.LookupStorageVolByName(name)
	if err != nil {
		r.t.Fatal(err)
	}
	defer v.Free()
	x, err := v.GetXMLDesc(0)
	if err != nil {
		r.t.Fatal(err)
	}
	var def libvirtxml.StorageVolume
	if err := def.Unmarshal(x); err != nil {
		r.t.Fatal(err)
	}
	return &def
}

// pattern is an image's content that a copy must carry.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/4096)
	}
	return b
}

func wantLines(t *testing.T, obs *engine.Observation, want ...string) {
	t.Helper()
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan\n%s\nwant\n%s\nblocked: %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), obs.Plan.Blocked)
	}
}

// TestPoolCreatedBeforeItsDisks: a declared pool that is missing is
// defined, built, started and autostarted by its own step before the
// VM's disk is made in it; then nothing is planned.
func TestPoolCreatedBeforeItsDisks(t *testing.T) {
	r, pool := storageRig(t)
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"none create pool/qemu:///session/images [active,autostart,path,type]",
		"none create vm/qemu:///session/web [autostart,disks,memory,running,vcpus]",
		"none create volume/qemu:///session/images/web-data [size]",
	)
	rep := r.apply(g, obs, run)
	if rep.Steps[0].Step != "pool/qemu:///session/images" || rep.Steps[0].Status != engine.StatusApplied {
		t.Fatalf("first step: got %+v, want the pool applied first", rep.Steps[0])
	}
	p, err := r.conn().LookupStoragePoolByName("images")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	wantPoolRunning(t, p)
	if _, err := os.Stat(filepath.Join(pool.Path, "web-data")); err != nil {
		t.Errorf("disk in the pool's directory: %v", err)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestDiskFromBase: an overlay's backing store is the base; a clone is a
// full copy grown to the disk's size; both are recorded with their base.
func TestDiskFromBase(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	img := pattern(1 << 20)
	r.upload("images", "base.raw", img)

	vm := r.stopped("web", pool,
		model.Disk{Pool: "images", Name: "web-root", SizeBytes: 4 << 20, Base: "base.raw"},
		model.Disk{Pool: "images", Name: "web-copy", SizeBytes: 2 << 20, Base: "base.raw", Clone: true})
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"none create vm/qemu:///session/web [autostart,disks,memory,running,vcpus]",
		"none create volume/qemu:///session/images/web-copy [base,size]",
		"none create volume/qemu:///session/images/web-root [base,size]",
	)
	r.apply(g, obs, run)

	overlay := r.volumeDef("images", "web-root")
	if overlay.BackingStore == nil || overlay.BackingStore.Path != filepath.Join(pool.Path, "base.raw") {
		t.Errorf("overlay backing store: got %+v, want %s", overlay.BackingStore, filepath.Join(pool.Path, "base.raw"))
	}
	if overlay.Target.Format.Type != "qcow2" || overlay.Capacity.Value != 4<<20 {
		t.Errorf("overlay: format %s capacity %d, want qcow2 of 4 MiB", overlay.Target.Format.Type, overlay.Capacity.Value)
	}
	clone := r.volumeDef("images", "web-copy")
	if clone.BackingStore != nil || clone.Capacity.Value != 2<<20 {
		t.Errorf("copy: backing %+v capacity %d, want no backing store and 2 MiB", clone.BackingStore, clone.Capacity.Value)
	}
	got, err := os.ReadFile(filepath.Join(pool.Path, "web-copy"))
	if err != nil || len(got) < len(img) || !bytes.Equal(got[:len(img)], img) {
		t.Errorf("copy does not start with the base's bytes (err %v, %d bytes)", err, len(got))
	}
	st := r.domain("web")
	var types []string
	for _, d := range st.Inactive.Devices.Disks {
		types = append(types, d.Driver.Type)
	}
	if !slices.Equal(types, []string{"qcow2", "raw"}) {
		t.Errorf("disk driver types %q, want qcow2 (overlay) and raw (copy of a raw base)", types)
	}
	o, _, _ := ownership.Parse(st.Inactive.Metadata.XML)
	if want := "tenant=t1 disk=images/web-copy@base.raw disk=images/web-root@base.raw"; o.String() != want {
		t.Errorf("owner %q, want %q", o.String(), want)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestRebaseNeedsGate: a disk whose base the spec changes is destroyed
// and made again from the new base, only behind GATE-VM-DISK-REBASE;
// without it nothing changes.
func TestRebaseNeedsGate(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "old.raw", pattern(1<<20))
	r.upload("images", "new.raw", pattern(1 << 20)[1:])
	disks := func(base string) []model.Disk {
		return []model.Disk{
			{Pool: "images", Name: "web-root", SizeBytes: 2 << 20, Base: base},
			{Pool: "images", Name: "web-copy", SizeBytes: 2 << 20, Base: base, Clone: true},
		}
	}
	r.converge(r.graph([]*model.VM{r.stopped("web", pool, disks("old.raw")...)}, nil))

	g := r.graph([]*model.VM{r.stopped("web", pool, disks("new.raw")...)}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"live update vm/qemu:///session/web [owner]",
		"destroy update volume/qemu:///session/images/web-copy [base] GATE-VM-DISK-REBASE",
		"destroy update volume/qemu:///session/images/web-root [base] GATE-VM-DISK-REBASE",
	)
	for _, c := range obs.Plan.Changes {
		if c.Impact == plan.ImpactDestroy && !strings.Contains(c.Reason, "lost") {
			t.Errorf("reason %q does not say the disk's data is lost", c.Reason)
		}
	}
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateVMDiskRebase)
	if b := r.volumeDef("images", "web-root").BackingStore; b == nil || filepath.Base(b.Path) != "old.raw" {
		t.Fatalf("without the gate the disk changed: backing %+v", b)
	}
	r.apply(g, obs, run, plan.GateVMDiskRebase)
	if b := r.volumeDef("images", "web-root").BackingStore; b == nil || filepath.Base(b.Path) != "new.raw" {
		t.Errorf("overlay after the rebase: backing %+v, want new.raw", b)
	}
	got, _ := os.ReadFile(filepath.Join(pool.Path, "web-copy"))
	if want := pattern(1 << 20)[1:]; len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
		t.Errorf("copy after the rebase does not hold the new base's bytes")
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

// TestMissingBaseNeverHalfApplies: a base that is not in the pool blocks
// the VM's step with a message naming host, pool and volume and how to
// provide it, and the apply refuses before changing anything: not even
// the pool step that would have run first.
func TestMissingBaseNeverHalfApplies(t *testing.T) {
	r, pool := storageRig(t)
	for _, tt := range []struct {
		name string
		prep func()
		want []string
		hint hint.Hint
	}{
		{"pool missing", func() {}, []string{"base volume debian-12.qcow2 in pool images on qemu:///session (host local), but that pool does not exist yet"},
			hint.Hint{Kind: hint.StartPool, Target: "pool/qemu:///session/images"}},
		{"base missing", func() { r.makePool(pool) },
			[]string{"base volume debian-12.qcow2, which is not in pool images on qemu:///session (host local)"},
			hint.Hint{Kind: hint.ProvideImage, Spec: `hosts: local: images: "debian-12.qcow2": {pool: "images", source: FILE}`,
				Command: "virsh -c qemu:///session vol-create-as images debian-12.qcow2 SIZE --format qcow2 && virsh -c qemu:///session vol-upload --pool images debian-12.qcow2 FILE (or copy the file into the pool's directory and run virsh pool-refresh images)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.prep()
			vm := r.stopped("web", pool,
				model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20},
				model.Disk{Pool: "images", Name: "web-root", SizeBytes: 1 << 30, Base: "debian-12.qcow2"})
			g := r.graph([]*model.VM{vm}, nil)
			obs, run := r.diff(g)
			if len(obs.Plan.Blocked) != 1 || obs.Plan.Blocked[0].Step != "vm/qemu:///session/web" {
				t.Fatalf("blocked: got %+v, want the VM step", obs.Plan.Blocked)
			}
			for _, w := range tt.want {
				if !strings.Contains(obs.Plan.Blocked[0].Reason, w) {
					t.Errorf("reason %q does not contain %q", obs.Plan.Blocked[0].Reason, w)
				}
			}
			if h := obs.Plan.Blocked[0].Hint; h == nil || *h != *tt.hint.ToJSON() {
				t.Errorf("hint %+v, want %+v", h, tt.hint.ToJSON())
			}
			_, err := r.tryApply(g, obs, run, plan.Catalogue()...)
			var be *engine.BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("apply: got %v, want a BlockedError", err)
			}
			if _, err := os.Stat(filepath.Join(pool.Path, "web-data")); !os.IsNotExist(err) {
				t.Errorf("the other disk was made (%v): a half-apply", err)
			}
		})
	}
}

// TestPoolConflictIsShown: a pool that exists at another path than
// site.cue declares is never redefined: its step is blocked with both
// paths, and its VMs are not observed.
func TestPoolConflictIsShown(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	moved := *pool
	moved.Path = pool.Path + "-elsewhere"
	vm := r.stopped("web", &moved, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	if len(obs.Plan.Blocked) != 2 {
		t.Fatalf("blocked: got %+v, want the pool step and the VM that needs it", obs.Plan.Blocked)
	}
	b := obs.Plan.Blocked[0]
	if b.Step != "pool/qemu:///session/images" || !strings.Contains(b.Reason, pool.Path) || !strings.Contains(b.Reason, moved.Path) || !strings.Contains(b.Reason, "never redefines") || b.Hint == nil || b.Hint.Kind != hint.ByHand.String() {
		t.Errorf("pool step blocked as %+v, want both paths and that site never redefines a pool", b)
	}
}

// TestDiskSmallerThanBase is refused: the overlay would hide the end of
// the base.
func TestDiskSmallerThanBase(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "base.raw", pattern(2<<20))
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 1 << 20, Base: "base.raw"})
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, `declare size: "2MiB" or more`) {
		t.Fatalf("blocked: got %+v, want the disk refused as smaller than its base", obs.Plan.Blocked)
	}
}

// TestPoolStepSaysOnlyWhatItDoes: a declared pool that runs but does not
// start with the host gets only autostart, and the plan says so rather
// than claim to start a running pool.
func TestPoolStepSaysOnlyWhatItDoes(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	p, err := r.conn().LookupStoragePoolByName(pool.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	if err := p.SetAutostart(false); err != nil {
		t.Fatal(err)
	}
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	for _, c := range obs.Plan.Changes {
		if c.Key != "pool/qemu:///session/images" {
			continue
		}
		if want := "start the declared storage pool with the host (autostart); it runs already"; c.Reason != want {
			t.Errorf("pool change reason %q, want %q", c.Reason, want)
		}
		return
	}
	t.Fatalf("no change planned for the pool: %q", lines(obs.Plan))
}
