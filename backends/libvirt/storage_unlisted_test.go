//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestUnlistedFileIsNotMadeOver: a running dir pool's directory may
// hold a file that libvirt does not list as a volume: one put there
// since libvirt last read the pool, one its daemon cannot open, a
// symbolic link to nothing, a named pipe. site's plan took the volume
// for missing, and apply then failed obscurely ("volume target path
// … already exists") or, for an overlay on a dangling link, had
// qemu-img write the new disk through the link, outside the pool. Now
// site diff blocks the VM's step, naming the file and why libvirt does
// not list it, and apply changes nothing.
func TestUnlistedFileIsNotMadeOver(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload(pool.Name, "base.raw", pattern(1<<20))
	elsewhere := filepath.Join(filepath.Dir(pool.Path), "elsewhere")
	nobody := func(t *testing.T, p string) {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	copied := func(t *testing.T, p string) {
		writeFile(t, p, pattern(1<<20))
		nobody(t, p)
	}
	tests := []struct {
		name       string
		disk       string
		base       bool // the disk is an overlay on base.raw
		undeclared bool // site.cue does not declare the pool: its path is libvirt's
		put        func(t *testing.T, path string)
		why        string // in the reason
	}{
		{name: "put there since the pool was read", disk: "copied", put: copied, why: "pool-refresh"},
		{name: "in a pool site.cue does not declare", disk: "other", undeclared: true, put: copied, why: "pool-refresh"},
		{name: "one the daemon cannot open", disk: "private", put: func(t *testing.T, p string) {
			if err := os.WriteFile(p, pattern(1<<20), 0o600); err != nil {
				t.Fatal(err)
			}
		}, why: "uid 0, gid 0, mode 0600"},
		{name: "a symbolic link to nothing", disk: "linked", base: true, put: func(t *testing.T, p string) {
			if err := os.Symlink(elsewhere, p); err != nil {
				t.Fatal(err)
			}
		}, why: "a symbolic link to " + elsewhere + ", which does not exist"},
		{name: "a named pipe", disk: "piped", put: func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, why: "a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(pool.Path, tt.disk)
			tt.put(t, path)
			disk := model.Disk{Pool: pool.Name, Name: tt.disk, SizeBytes: 1 << 20}
			if tt.base {
				disk.Base, disk.SizeBytes = "base.raw", 2<<20
			}
			vm := r.stopped("vm-"+tt.disk, pool, disk)
			if tt.undeclared {
				vm.Pools = nil
			}
			g := r.graph([]*model.VM{vm}, nil)
			obs, run := r.diff(g)
			if len(obs.Plan.Blocked) != 1 || obs.Plan.Blocked[0].Step != graph.VMStepID(r.host, vm.Name) {
				t.Fatalf("got plan %q, blocked %+v; want the VM's step blocked", lines(obs.Plan), obs.Plan.Blocked)
			}
			reason := obs.Plan.Blocked[0].Reason
			for _, want := range []string{path, "libvirt does not list", tt.why, "nothing was changed"} {
				if !strings.Contains(reason, want) {
					t.Errorf("the reason does not say %q:\n%s", want, reason)
				}
			}
			_, err := r.tryApply(g, obs, run)
			if be := (*engine.BlockedError)(nil); !errors.As(err, &be) {
				t.Errorf("apply: %v, want it refused for the blocked step", err)
			}
			if _, err := r.conn().LookupDomainByName(vm.Name); err == nil {
				t.Error("apply defined the domain")
			}
			if _, err := os.Lstat(elsewhere); err == nil {
				t.Errorf("apply made %s through the link", elsewhere)
			}
		})
	}
}

// TestOverlayOnMissingBaseIsListed: libvirt 9.0 lists an overlay whose
// backing file is missing (it fakes the backing's format as raw), so
// site reads it as the volume it is, never as a missing one to make:
// here, one no domain has attached, refused as an overlay for a disk
// that declares no base.
func TestOverlayOnMissingBaseIsListed(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	qemuImg(t, pool.Path, "create", "-q", "-f", "qcow2", "-u", "-b", "gone.raw", "-F", "raw", "orphan", "1M")
	p, err := r.conn().LookupStoragePoolByName(pool.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	if err := p.Refresh(0); err != nil {
		t.Fatal(err)
	}
	vm := r.stopped("adopter", pool, model.Disk{Pool: pool.Name, Name: "orphan", SizeBytes: 1 << 20})
	obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "reads as a qcow2 overlay on") {
		t.Fatalf("got plan %q, blocked %+v; want the VM's step refused for the overlay libvirt lists", lines(obs.Plan), obs.Plan.Blocked)
	}
}
