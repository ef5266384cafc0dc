//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/qcow2"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// newPoolFiles is what a test puts in the directory of a declared pool
// that does not exist yet, named by file name (a pool undefined by hand
// with its files kept, or a directory the operator filled).
type newPoolFiles func(t *testing.T, dir string, vm *model.VM)

// TestMissingPoolDiffSaysWhatApplyDoes: a declared pool that does not
// exist yet is made on a directory that may already hold files, and the
// apply that makes it takes each one for the volume it is (its fresh
// plan, once the pool runs): a disk of the declared size is kept, a
// smaller one grows behind its gate, a larger one or one made from
// another base is refused, an image or a seed already there is not
// uploaded. site diff must say that, not "+ create" for every volume:
// its plan of the volumes equals the one it shows once the pool has
// been made over the same directory.
func TestMissingPoolDiffSaysWhatApplyDoes(t *testing.T) {
	r, rigPool := storageRig(t)
	src := filepath.Join(t.TempDir(), "base.raw")
	if err := os.WriteFile(src, pattern(1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := func(name string, size int) newPoolFiles {
		return func(t *testing.T, dir string, _ *model.VM) { writeFile(t, filepath.Join(dir, name), pattern(size)) }
	}
	// overlay makes a qcow2 overlay on backing, a name relative to the
	// directory, written into the overlay as it is or, with abs, as its
	// absolute path (as libvirt writes it).
	overlay := func(name, backing string, abs bool) newPoolFiles {
		return func(t *testing.T, dir string, _ *model.VM) {
			if abs {
				backing = filepath.Join(dir, backing)
			}
			qemuImg(t, dir, "create", "-q", "-f", "qcow2", "-b", backing, "-F", "raw", name, "2M")
		}
	}
	seedFile := func(t *testing.T, dir string, vm *model.VM) {
		s := seed.Build(seed.Input{Hostname: vm.Name, UserData: vm.CloudInit.UserData})
		writeFile(t, filepath.Join(dir, s.Name), s.ISO)
	}
	for _, tc := range []struct {
		name  string
		files []newPoolFiles
		noDir bool // not even the directory exists
		base  bool // the VM's root disk starts from the declared image base.raw
	}{
		{name: "no directory", noDir: true},
		{name: "empty directory"},
		{name: "disk as declared", files: []newPoolFiles{raw("web-data", 1<<20)}},
		{name: "disk smaller than declared", files: []newPoolFiles{raw("web-data", 512<<10)}},
		{name: "disk larger than declared", files: []newPoolFiles{raw("web-data", 4<<20)}},
		{name: "seed there", files: []newPoolFiles{seedFile}},
		{name: "image there", base: true, files: []newPoolFiles{raw("base.raw", 1<<20)}},
		{name: "image only at its source", base: true},
		{name: "overlay on its base", base: true, files: []newPoolFiles{raw("base.raw", 1<<20), overlay("web-root", "base.raw", true)}},
		{name: "overlay on its base, relative", base: true, files: []newPoolFiles{raw("base.raw", 1<<20), overlay("web-root", "base.raw", false)}},
		{name: "overlay on another base", base: true, files: []newPoolFiles{raw("base.raw", 1<<20), raw("other.raw", 1<<20), overlay("web-root", "other.raw", true)}},
		{name: "image upload not finished", base: true, files: []newPoolFiles{raw("base.raw", 1<<20), raw(uploadmark.UploadingName("base.raw"), 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "p" + strings.NewReplacer(" ", "", ",", "").Replace(tc.name)
			pool := &model.Pool{HostName: rigPool.HostName, Host: rigPool.Host, Name: name, Type: "dir", Path: filepath.Join(filepath.Dir(rigPool.Path), name)}
			vm := r.stopped("web-"+name, pool, model.Disk{Pool: name, Name: "web-data", SizeBytes: 1 << 20})
			vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"}
			if tc.base {
				vm.Images = []*model.Image{{Pool: pool, Name: "base.raw", Source: src}}
				vm.Disks = append(vm.Disks, model.Disk{Pool: name, Name: "web-root", SizeBytes: 2 << 20, Base: "base.raw"})
			}
			if !tc.noDir {
				if err := os.MkdirAll(pool.Path, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.files {
				f(t, pool.Path, vm)
			}
			g := r.graph([]*model.VM{vm}, nil)
			missing, _ := r.diff(g)
			if _, err := r.conn().LookupStoragePoolByName(name); err == nil {
				t.Fatal("site diff made the pool: a diff must not change anything")
			}
			r.makePool(pool)
			made, _ := r.diff(g)
			poolStep := "pool/" + pool.Host + "/" + name
			if got, want := volumePlan(missing, poolStep), volumePlan(made, poolStep); !slices.Equal(got, want) {
				t.Errorf("with the pool missing, site diff says\n%s\nbut once it is made over the same directory, what apply then does is\n%s",
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// volumePlan renders what obs plans and blocks outside the pool's own
// step, with each change's reason.
func volumePlan(obs *engine.Observation, poolStep string) []string {
	var out []string
	for _, c := range obs.Plan.Changes {
		if c.Step != poolStep {
			out = append(out, line(c)+": "+c.Reason)
		}
	}
	for _, b := range obs.Plan.Blocked {
		if b.Step != poolStep {
			out = append(out, "blocked "+b.Step+": "+b.Reason)
		}
	}
	return out
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// qemuImg runs qemu-img in dir.
func qemuImg(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, err := lookPathQemuImg()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qemu-img %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestMissingPoolDiffSaysWhatItCannotRead: where site cannot read a file
// in the directory of a declared pool that does not exist yet as
// libvirt will (the directory is not one, the file is a directory, in a
// format site does not read, or an overlay on a file that is not
// there), the plan claims no create for the volume: it says what it
// could not read and that apply reads the volume once it made the pool.
func TestMissingPoolDiffSaysWhatItCannotRead(t *testing.T) {
	r, rigPool := storageRig(t)
	for _, tc := range []struct {
		name string
		prep func(t *testing.T, dir string)
		why  string // in the reason
	}{
		{"directory is a file", func(t *testing.T, dir string) { writeFile(t, dir, nil) },
			"its directory cannot be read here: "},
		{"disk is a directory", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "web-data")) },
			"/web-data is a directory, which site does not read ahead of libvirt"},
		{"disk in another format", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), append([]byte("KDMV"), make([]byte, 508)...))
		}, "/web-data is a vmdk image, a format site does not read"},
		{"overlay on a missing file", func(t *testing.T, dir string) {
			mkdir(t, dir)
			qemuImg(t, dir, "create", "-q", "-f", "qcow2", "-u", "-b", "gone.raw", "-F", "raw", "web-data", "1M")
		}, "/web-data is an overlay on " + "DIR/gone.raw, which cannot be read here: "},
		// A guest writes the first bytes of its raw disk: what its header
		// names is the guest's text, shown escaped on one line.
		{"backing name a guest wrote", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), guestQcow2Header(1<<20, "gone\x1b[2J\n::error::forged"))
		}, `/web-data is an overlay on DIR/gone\x1b[2J\n::error::forged, which cannot be read here: `},
		// Nor does a header make site look outside the pool's directory:
		// whether the runner has a file there is not the plan's to say.
		{"backing outside the pool there", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), guestQcow2Header(1<<20, outsideFile(t, true)))
		}, "/web-data is an overlay on a file outside the pool's directory, which site does not look at before libvirt does"},
		{"backing outside the pool not there", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), guestQcow2Header(1<<20, outsideFile(t, false)))
		}, "/web-data is an overlay on a file outside the pool's directory, which site does not look at before libvirt does"},
		// Nor is a header that keeps the data in another file taken
		// for a qcow2 image of the disk's own.
		{"external data file a guest wrote", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), guestDataFileImage(t, 1<<20, outsideFile(t, true)))
		}, "/web-data is a qcow2 image whose data is in an external data file its header names"},
		{"backing outside the pool relative", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "web-data"), guestQcow2Header(1<<20, "../../../../../../etc/hostname"))
		}, "/web-data is an overlay on a file outside the pool's directory, which site does not look at before libvirt does"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "q" + strings.ReplaceAll(tc.name, " ", "")
			pool := &model.Pool{HostName: rigPool.HostName, Host: rigPool.Host, Name: name, Type: "dir", Path: filepath.Join(filepath.Dir(rigPool.Path), name)}
			tc.prep(t, pool.Path)
			vm := r.stopped("web-"+name, pool, model.Disk{Pool: name, Name: "web-data", SizeBytes: 1 << 20})
			obs, _ := r.diff(r.graph([]*model.VM{vm}, nil))
			key := storage.VolumeKey(pool.Host, name, "web-data")
			var got []plan.Change
			for _, c := range obs.Plan.Changes {
				if c.Key == key {
					got = append(got, c)
				}
			}
			if len(got) != 1 {
				t.Fatalf("changes to %s: got %d, want 1; plan %q, blocked %+v", key, len(got), lines(obs.Plan), obs.Plan.Blocked)
			}
			c := got[0]
			if want := "none update " + key + " [volume]"; line(c) != want {
				t.Errorf("got %q, want %q", line(c), want)
			}
			if c.Before["volume"] != "unknown: pool "+name+" does not exist yet" || c.After["volume"] != "read after the pool is made" {
				t.Errorf("got %v → %v, want the volume unknown until the pool is made", c.Before, c.After)
			}
			for _, want := range []string{"pool " + name + " does not exist yet, and ", strings.ReplaceAll(tc.why, "DIR", pool.Path), "it is read after the pool is made, in apply"} {
				if !strings.Contains(c.Reason, want) {
					t.Errorf("reason %q does not say %q", c.Reason, want)
				}
			}
			if i := strings.IndexFunc(c.Reason, hiddenRune); i >= 0 {
				t.Errorf("reason %q holds %q, which the plan shows as it is", c.Reason, c.Reason[i:i+1])
			}
			if strings.Contains(c.Reason, "outside") && strings.Contains(c.Reason, outsideDir) {
				t.Errorf("reason %q names the file outside the pool", c.Reason)
			}
		})
	}
}

// guestQcow2Header is what a guest writes to the start of its raw disk
// to have it probed as a qcow2 image of size bytes whose backing file is
// backing (none when "").
func guestQcow2Header(size uint64, backing string) []byte {
	b := make([]byte, 4096)
	copy(b, qcow2.Magic)
	binary.BigEndian.PutUint32(b[4:], 3)
	if backing != "" {
		binary.BigEndian.PutUint64(b[8:], 512)
		binary.BigEndian.PutUint32(b[16:], uint32(len(backing)))
		copy(b[512:], backing)
	}
	binary.BigEndian.PutUint32(b[20:], 16) // cluster bits
	binary.BigEndian.PutUint64(b[24:], size)
	binary.BigEndian.PutUint32(b[100:], 104) // header length
	return b
}

// outsideDir holds the files a guest's header names outside the pool.
var outsideDir = filepath.Join(os.TempDir(), "site-redteam-outside")

// outsideFile is a path outside every pool, a file there when exists.
func outsideFile(t *testing.T, exists bool) string {
	t.Helper()
	mkdir(t, outsideDir)
	t.Cleanup(func() { os.RemoveAll(outsideDir) })
	p := filepath.Join(outsideDir, "missing")
	if exists {
		p = filepath.Join(outsideDir, "secret")
		writeFile(t, p, []byte("runner's"))
	}
	return p
}

func hiddenRune(r rune) bool { return unicode.IsControl(r) || unicode.In(r, unicode.Cf) }

// TestMissingPoolDiskGrowsBehindItsGate: a disk's file found smaller
// than the spec in the directory of a pool site makes needs its resize
// gate in the plan, so an apply without it changes nothing, not even the
// pool (it made the pool, then stopped at the disk); with it, the pool
// is made and the disk grown, its data kept.
func TestMissingPoolDiskGrowsBehindItsGate(t *testing.T) {
	r, pool := storageRig(t)
	mkdir(t, pool.Path)
	data := pattern(512 << 10)
	writeFile(t, filepath.Join(pool.Path, "web-data"), data)
	// The session daemon runs as nobody: it grows the file it did not make.
	if err := os.Chmod(filepath.Join(pool.Path, "web-data"), 0o666); err != nil {
		t.Fatal(err)
	}
	g := r.graph([]*model.VM{r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})}, nil)
	obs, run := r.diff(g)
	wantLines(t, obs,
		"none create pool/qemu:///session/images [active,autostart,path,type]",
		"none create vm/qemu:///session/web [autostart,disks,memory,running,vcpus]",
		"next-boot update volume/qemu:///session/images/web-data [size] GATE-VM-DISK-RESIZE",
	)
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateVMDiskResize)
	if _, err := r.conn().LookupStoragePoolByName("images"); err == nil {
		t.Error("an apply without the disk's gate made the pool")
	}
	obs, run = r.diff(g)
	r.apply(g, obs, run, plan.GateVMDiskResize)
	got, err := os.ReadFile(filepath.Join(pool.Path, "web-data"))
	if err != nil || len(got) != 1<<20 || !bytes.Equal(got[:len(data)], data) {
		t.Errorf("the disk was not grown with its data kept (%v, %d bytes)", err, len(got))
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() || len(again.Plan.Blocked) > 0 {
		t.Errorf("got %q %+v, want No changes", lines(again.Plan), again.Plan.Blocked)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
