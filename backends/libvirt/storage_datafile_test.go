//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A qcow2 image may keep its data in an external file its header names
// (the "data file" extension, incompatible feature bit 2). libvirt 9
// does not report it, QEMU and qemu-img follow it, and a guest writes
// such a header to the start of its raw disk as easily as a backing
// file's: a disk, or a copy of a base, read through it holds whatever
// file the header names (another tenant's disk, any file of the host).

// guestDataFileImage is a qcow2 image whose data is the file dataFile,
// read as raw from its start: what a guest writes to the start of its
// raw disk, built with qemu-img (create names a file of its own, as it
// truncates the one it is given; amend then names dataFile).
func guestDataFileImage(t *testing.T, size int, dataFile string) []byte {
	t.Helper()
	scratch := filepath.Join(t.TempDir(), "scratch")
	return qemuImgImage(t,
		[]string{"create", "-q", "-f", "qcow2", "-o", "data_file=" + scratch + ",data_file_raw=on", "IMG", strconv.Itoa(size)},
		[]string{"amend", "-q", "-f", "qcow2", "-o", "data_file=" + dataFile, "IMG"})
}

// TestGuestDataFileIsNotCopied: a guest that writes a qcow2 header
// naming another tenant's disk as its external data file into its own
// raw disk, which its tenant then names as the base of a copy, does not
// get that disk's bytes in the copy (libvirt copies a base in the
// format it probes, whatever the domain has it as): the base is refused.
func TestGuestDataFileIsNotCopied(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	secret := bytes.Repeat([]byte("VICTIMDATA"), (1<<20)/10)
	r.upload("images", "victim-root", secret)
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))
	r.writeGuestHeader(pool, "a-data", guestDataFileImage(t, 1<<20, filepath.Join(pool.Path, "victim-root")))

	b := r.stopped("b", pool, model.Disk{Pool: "images", Name: "b-copy", SizeBytes: 1 << 20, Base: "a-data", Clone: true})
	g := r.graph([]*model.VM{a, b}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) == 0 {
		r.apply(g, obs, run)
	}
	got, err := os.ReadFile(filepath.Join(pool.Path, "b-copy"))
	if err == nil && bytes.Contains(got, []byte("VICTIMDATAVICTIMDATA")) {
		t.Fatalf("the copy of a's disk holds victim-root's bytes: the guest's header chose the file it was read from")
	}
}

// guestVMDKExtents is a vmdk image of size bytes whose header sends
// QEMU to the descriptor after it, which names file as its one extent:
// what a guest writes to the start of its raw disk to have the disk
// read from another file. libvirt probes it as vmdk and reports no
// backing store.
func guestVMDKExtents(size int, file string) []byte {
	b := make([]byte, size)
	copy(b, "KDMV")
	le := binary.LittleEndian
	le.PutUint32(b[4:], 1)    // version
	le.PutUint32(b[8:], 3)    // flags
	le.PutUint64(b[12:], 0)   // capacity 0: the extents are the descriptor's
	le.PutUint64(b[20:], 128) // granularity
	le.PutUint64(b[28:], 1)   // the descriptor's sector
	le.PutUint64(b[36:], 20)  // and its length in sectors
	le.PutUint32(b[44:], 512)
	copy(b[73:], "\n \r\n")
	copy(b[512:], fmt.Sprintf("# Disk DescriptorFile\nversion=1\nCID=fffffffe\nparentCID=ffffffff\ncreateType=\"monolithicFlat\"\n\nRW %d FLAT %q 0\n", size/512, file))
	return b
}

// TestGuestHeaderNamingAnotherFileIsRefused: a volume whose format
// comes from what libvirt probes in its first bytes (no domain's
// definition says) is refused as a disk, or as a base a disk is made
// from, when that header names another file QEMU or qemu-img would
// read for it: a qcow2 external data file, a vmdk descriptor's
// extents. The header may be a guest's, written to the start of its
// raw disk; here it names another tenant's disk.
func TestGuestHeaderNamingAnotherFileIsRefused(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	victim := filepath.Join(pool.Path, "victim-root")
	r.upload("images", "victim-root", bytes.Repeat([]byte("VICTIMDATA"), (1<<20)/10))
	r.upload("images", "left-datafile", guestDataFileImage(t, 1<<20, victim))
	r.upload("images", "left-vmdk", guestVMDKExtents(1<<20, victim))
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))
	r.writeGuestHeader(pool, "a-data", guestDataFileImage(t, 1<<20, victim))

	for _, tc := range []struct {
		name, why string
		disk      model.Disk
	}{
		{"data file as a disk", "external data file", model.Disk{Name: "left-datafile"}},
		{"vmdk as a disk", "vmdk", model.Disk{Name: "left-vmdk"}},
		{"data file as a base", "external data file", model.Disk{Name: "b-root", Base: "left-datafile"}},
		{"vmdk as a base to copy", "vmdk", model.Disk{Name: "b-root", Base: "left-vmdk", Clone: true}},
		{"a raw disk of the tenant's as a base to copy", "external data file", model.Disk{Name: "b-root", Base: "a-data", Clone: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.disk.Pool, tc.disk.SizeBytes = "images", 1<<20
			obs, _ := r.diff(r.graph([]*model.VM{a, r.stopped("b", pool, tc.disk)}, nil))
			if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, tc.why) {
				t.Fatalf("got plan %q, blocked %+v; want b's step refused, saying %q", lines(obs.Plan), obs.Plan.Blocked, tc.why)
			}
		})
	}
}

// TestGuestHeaderDoesNotSteerAResize: the size of a raw disk whose
// guest wrote a qcow2 header into it is its file's, not the header's,
// and site does not have libvirt grow it, as libvirt would grow it as
// that qcow2 image: qemu-img resize follows the header's external data
// file and grows that file (another tenant's disk, any file of the
// host) to the new size.
func TestGuestHeaderDoesNotSteerAResize(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	victim := pattern(64 << 10)
	r.upload("images", "victim-root", victim)
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))
	r.writeGuestHeader(pool, "a-data", guestDataFileImage(t, 64<<10, filepath.Join(pool.Path, "victim-root")))

	if obs, _ := r.diff(r.graph([]*model.VM{a}, nil)); obs.Plan.HasChanges() || len(obs.Plan.Blocked) > 0 {
		t.Errorf("got plan %q, blocked %+v; want No changes: the disk's file is the size the spec declares", lines(obs.Plan), obs.Plan.Blocked)
	}
	a.Disks[0].SizeBytes = 2 << 20
	g := r.graph([]*model.VM{a}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) == 0 {
		r.apply(g, obs, run, plan.GateVMDiskResize)
	} else if h := obs.Plan.Blocked[0].Hint; h == nil || h.Kind != hint.ByHand.String() || !strings.Contains(h.Text, "qemu-img resize -f raw") {
		t.Errorf("blocked %+v, want the step refused saying how to grow the disk as raw", obs.Plan.Blocked)
	}
	if st, err := os.Stat(filepath.Join(pool.Path, "victim-root")); err != nil || st.Size() != int64(len(victim)) {
		t.Fatalf("victim-root after a's disk grew: %v, %d bytes, want %d: the guest's header chose the file grown", err, fileSize(st), len(victim))
	}
}

func fileSize(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}

// TestOverlayOnAGuestsDiskReadsItRaw: an overlay made on a raw disk of
// the tenant's own VM reads it as raw, as its domain does, whatever
// header its guest has written there: the overlay's header keeps the
// backing format it was made with, so one made while the guest's header
// was a plain qcow2 image's would read the file as qcow2 for good, and
// an external data file the guest names there later, another tenant's
// disk, would be what the new VM reads.
func TestOverlayOnAGuestsDiskReadsItRaw(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "victim-root", bytes.Repeat([]byte("VICTIMDATA"), (1<<20)/10))
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))
	r.writeGuestHeader(pool, "a-data", qemuImgImage(t, []string{"create", "-q", "-f", "qcow2", "IMG", "1M"}))

	b := r.stopped("b", pool, model.Disk{Pool: "images", Name: "b-root", SizeBytes: 1 << 20, Base: "a-data"})
	g := r.graph([]*model.VM{a, b}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if bs := r.volumeDef("images", "b-root").BackingStore; bs == nil || bs.Format == nil || bs.Format.Type != "raw" {
		t.Errorf("b-root's backing store %+v, want a-data as raw", bs)
	}
	// What b's QEMU reads once a's guest names victim-root as its data
	// file.
	r.writeGuestHeader(pool, "a-data", guestDataFileImage(t, 1<<20, filepath.Join(pool.Path, "victim-root")))
	out := filepath.Join(t.TempDir(), "b.raw")
	if msg, err := exec.Command("qemu-img", "convert", "-O", "raw", filepath.Join(pool.Path, "b-root"), out).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img convert b-root: %v: %s", err, msg)
	}
	if got, _ := os.ReadFile(out); bytes.Contains(got, []byte("VICTIMDATAVICTIMDATA")) {
		t.Errorf("b's disk reads victim-root's bytes through a's guest's header")
	}
}

// qemuImgImage runs qemu-img once per command, IMG standing for a file
// of its own, and returns that file's bytes: an image as a guest writes
// it to the start of its raw disk.
func qemuImgImage(t *testing.T, commands ...[]string) []byte {
	t.Helper()
	img := filepath.Join(t.TempDir(), "img")
	for _, args := range commands {
		args = slices.Clone(args)
		for i, a := range args {
			if a == "IMG" {
				args[i] = img
			}
		}
		if out, err := exec.Command("qemu-img", args...).CombinedOutput(); err != nil {
			t.Fatalf("qemu-img %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoCopyOfAGuestsDisk: a disk is not made as a copy of a raw disk
// of the tenant's own VM. libvirt copies a volume in the format it last
// probed, and probes again whenever anything is uploaded into the pool
// (here another run's upload, between the plan and the copy): a header
// the guest wrote after the plan read the volume as raw would have
// qemu-img copy the external data file it names, another tenant's disk.
func TestNoCopyOfAGuestsDisk(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "victim-root", bytes.Repeat([]byte("VICTIMDATA"), (1<<20)/10))
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))

	b := r.stopped("b", pool, model.Disk{Pool: "images", Name: "b-copy", SizeBytes: 1 << 20, Base: "a-data", Clone: true})
	g := r.graph([]*model.VM{a, b}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) == 0 {
		writeGuestBytes(t, pool, "a-data", guestDataFileImage(t, 1<<20, filepath.Join(pool.Path, "victim-root")))
		r.upload("images", "another-runs-upload", pattern(4096))
		r.apply(g, obs, run)
	} else if !strings.Contains(obs.Plan.Blocked[0].Reason, "has attached as raw") {
		t.Errorf("blocked %+v, want b's step refused, saying a has the volume attached as raw", obs.Plan.Blocked)
	}
	if got, err := os.ReadFile(filepath.Join(pool.Path, "b-copy")); err == nil && bytes.Contains(got, []byte("VICTIMDATAVICTIMDATA")) {
		t.Fatalf("the copy of a's disk holds victim-root's bytes: the guest's header chose the file copied")
	}
}

// TestNoCopyOfAStaleRawRead: nor is a disk made as a copy of a volume
// no domain has attached whose first bytes are another format's header
// while libvirt, which has not probed it since the header was written
// (the raw disk of a domain undefined since), still reads it as raw:
// the next upload into the pool, before the copy, has libvirt probe it
// again and copy it in that format.
func TestNoCopyOfAStaleRawRead(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "victim-root", bytes.Repeat([]byte("VICTIMDATA"), (1<<20)/10))
	r.upload("images", "left-data", make([]byte, 1<<20))
	writeGuestBytes(t, pool, "left-data", guestDataFileImage(t, 1<<20, filepath.Join(pool.Path, "victim-root")))

	b := r.stopped("b", pool, model.Disk{Pool: "images", Name: "b-copy", SizeBytes: 1 << 20, Base: "left-data", Clone: true})
	g := r.graph([]*model.VM{b}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) == 0 {
		r.upload("images", "another-runs-upload", pattern(4096))
		r.apply(g, obs, run)
	} else if !strings.Contains(obs.Plan.Blocked[0].Reason, "external data file") {
		t.Errorf("blocked %+v, want b's step refused, saying the header names an external data file", obs.Plan.Blocked)
	}
	if got, err := os.ReadFile(filepath.Join(pool.Path, "b-copy")); err == nil && bytes.Contains(got, []byte("VICTIMDATAVICTIMDATA")) {
		t.Fatalf("the copy of left-data holds victim-root's bytes: the header libvirt had not read yet chose the file copied")
	}
}

// TestResizeRechecksTheFormat: a disk whose guest writes a header
// after the plan read it is not grown in the format libvirt reads in
// that header by the time of the resize (it probes the pool again when
// anything is uploaded into it): the resize checks the format libvirt
// reads it in first, and fails the step rather than grow the external
// data file the header names.
func TestResizeRechecksTheFormat(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	victim := pattern(64 << 10)
	r.upload("images", "victim-root", victim)
	a := r.stopped("a", pool, model.Disk{Pool: "images", Name: "a-data", SizeBytes: 1 << 20})
	r.converge(r.graph([]*model.VM{a}, nil))

	a.Disks[0].SizeBytes = 2 << 20
	g := r.graph([]*model.VM{a}, nil)
	obs, run := r.diff(g)
	writeGuestBytes(t, pool, "a-data", guestDataFileImage(t, 64<<10, filepath.Join(pool.Path, "victim-root")))
	r.upload("images", "another-runs-upload", pattern(4096))
	rep, err := r.tryApply(g, obs, run, plan.GateVMDiskResize)
	if st, serr := os.Stat(filepath.Join(pool.Path, "victim-root")); serr != nil || st.Size() != int64(len(victim)) {
		t.Fatalf("victim-root after a's disk grew: %v, %d bytes, want %d: the guest's header chose the file grown", serr, fileSize(st), len(victim))
	}
	var failed []string
	if rep != nil {
		for _, s := range rep.Steps {
			if s.Status == engine.StatusFailed {
				failed = append(failed, s.Reason)
			}
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "reads it as qcow2") {
		t.Errorf("apply: %v, failed %q; want a's step failed, saying libvirt now reads the volume as qcow2", err, failed)
	}
}
