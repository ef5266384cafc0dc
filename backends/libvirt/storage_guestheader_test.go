//go:build cgo && libvirt_dlopen

package libvirt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// A blank disk is a raw file, and its guest writes its first bytes: a
// qcow2 header there makes libvirt probe the file as a qcow2 image,
// with whatever backing file the header names. A domain defined with
// that format has QEMU open the guest's file as qcow2 and follow its
// header to the backing file, another tenant's disk or any file of the
// host: the driver type of a disk must never come from what its guest
// wrote.

// writeGuestHeader writes hdr over the start of a volume's file, as
// its guest writes its first sector, and has libvirt read the pool
// again, as it does when it restarts or an upload into the pool ends.
func (r *rig) writeGuestHeader(pool *model.Pool, name string, hdr []byte) {
	r.t.Helper()
	writeGuestBytes(r.t, pool, name, hdr)
	p, err := r.conn().LookupStoragePoolByName(pool.Name)
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Free()
	if err := p.Refresh(0); err != nil {
		r.t.Fatal(err)
	}
}

// writeGuestBytes writes hdr over the start of a volume's file, as its
// guest writes its first sector; libvirt reads it at its next refresh
// of the pool.
func writeGuestBytes(t testing.TB, pool *model.Pool, name string, hdr []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(pool.Path, name), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(hdr, 0); err != nil {
		t.Fatal(err)
	}
}

// diskDrivers are the driver types of domain name's disks (not its
// cdroms) in its persistent definition.
func (r *rig) diskDrivers(name string) []string {
	r.t.Helper()
	var out []string
	for _, d := range r.domain(name).Inactive.Devices.Disks {
		if d.Device == "disk" {
			out = append(out, d.Target.Dev+" "+d.Driver.Type)
		}
	}
	return out
}

// TestGuestHeaderKeepsARawDiskRaw: a guest that writes a qcow2 header
// into its raw disk does not turn the disk into a qcow2 image of its
// making when site next defines its domain (here for a memory change).
func TestGuestHeaderKeepsARawDiskRaw(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})
	g := r.graph([]*model.VM{vm}, nil)
	r.converge(g)
	r.writeGuestHeader(pool, "web-data", guestQcow2Header(1<<20, ""))
	vm.MemoryBytes *= 2
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if got := r.diskDrivers("web"); strings.Join(got, ",") != "vda raw" {
		t.Errorf("the definition's disks are %q after a memory change, want [vda raw]: the guest's header chose the format", got)
	}
}

// TestMovedDiskKeepsItsDriverType: a tenant moving a disk from one of
// its VMs to another (the running one keeps it until its next boot)
// gets it with the driver type it has there, not the one its guest's
// header says.
func TestMovedDiskKeepsItsDriverType(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	a.Running = true
	victim := r.stopped("victim", pool, model.Disk{Pool: "images", Name: "victim-root", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a, victim}, nil))
	r.writeGuestHeader(pool, "a-data", guestQcow2Header(1<<20, "victim-root"))
	a.Disks = nil
	b := r.stopped("b", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	g := r.graph([]*model.VM{a, b, victim}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if got := r.diskDrivers("b"); strings.Join(got, ",") != "vda raw" {
		t.Errorf("b's disks are %q, want [vda raw], as a had it: a qcow2 disk reads the file its guest's header names", got)
	}
}

// TestUnattachedOverlayWithoutBaseIsRefused: a volume no domain has
// attached and site did not make, whose header makes it an overlay, is
// not attached as one to a disk that declares no base: its header may
// be a guest's (the raw disk of a domain undefined by hand) naming
// another tenant's disk. The VM's step is refused, naming the backing
// file; nothing is defined.
func TestUnattachedOverlayWithoutBaseIsRefused(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "victim-root", pattern(1<<20))
	r.upload("images", "left-data", guestQcow2Header(1<<20, "victim-root"))
	g := r.graph([]*model.VM{r.stopped("b", pool, model.Disk{Pool: "images", Name: "left-data", SizeBytes: 1 << 20})}, nil)
	obs, _ := r.diff(g)
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "victim-root") {
		t.Fatalf("got plan %q, blocked %+v; want b's step refused, naming the backing file victim-root", lines(obs.Plan), obs.Plan.Blocked)
	}
	if _, err := r.conn().LookupDomainByName("b"); err == nil {
		t.Error("a diff defined the domain")
	}
}

// TestOverlayBaseIsRefused: nor is a disk made from a base volume
// whose header makes it an overlay, unless site.cue declares the image:
// a volume no domain has attached is any tenant's to start from, and a
// guest's raw disk left in the pool would have the new disk read the
// file its header names (the overlay's backing chain goes through it).
func TestOverlayBaseIsRefused(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "victim-root", pattern(1<<20))
	r.upload("images", "left-data", guestQcow2Header(1<<20, "victim-root"))
	g := r.graph([]*model.VM{r.stopped("b", pool, model.Disk{Pool: "images", Name: "b-root", SizeBytes: 2 << 20, Base: "left-data"})}, nil)
	obs, _ := r.diff(g)
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, "victim-root") {
		t.Fatalf("got plan %q, blocked %+v; want b's step refused, naming the backing file victim-root", lines(obs.Plan), obs.Plan.Blocked)
	}
}
