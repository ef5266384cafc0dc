//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/words"
)

// uploadNote is the note a run of site writes into an upload's marker
// (backends/libvirt/uploadmark.go), as a run that was killed left it:
// pid 1 on another machine, or with here a process of this machine's
// kernel that is gone.
func uploadNote(t *testing.T, tenant string, here bool) []byte {
	machine, boot, pidns, pid := "elsewhere", "another-kernel", "pid:[1]", 1
	if here {
		b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
		if err != nil {
			t.Fatal(err)
		}
		machine, boot, pid = "runner", strings.TrimSpace(string(b)), 999999999
		if pidns, err = os.Readlink("/proc/self/ns/pid"); err != nil {
			t.Fatal(err)
		}
	}
	s := fmt.Sprintf("site upload\nmachine %s\npid %d\nboot %s\npidns %s\nsince 2026-01-01T00:00:00Z\n", machine, pid, boot, pidns)
	if tenant != "" {
		s += "tenant " + tenant + "\n"
	}
	return append([]byte(s), make([]byte, 512-len(s))...)
}

// TestLeftoversReportsUploadsNoRunTakesUp: on a real session daemon,
// site leftovers reports per pool the uploads a killed run left that
// no diff or apply takes up again, from site's own markers: a seed of a
// removed tenant (its run's process proved gone), a seed marker alone
// of a tenant that declares no VM on the host, a seed whose marker an
// older site wrote (no tenant), a base image site.cue no longer
// declares; with the virsh commands that delete the volume and then
// its markers; and a whole seed whose bytes prove site made it for a
// VM no tenant declares there (its domain undefined by hand). Not
// reported: a seed of a tenant that still declares a VM there, the
// partial upload of an image site.cue declares (its runs upload them
// again), a partial seed a domain not site's has as its disk, a whole
// seed of a VM declared there, and a volume without a marker or whose
// bytes are not a seed site made (nothing proves it site's).
// Running the commands leaves nothing over.
func TestLeftoversReportsUploadsNoRunTakesUp(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	virsh := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("virsh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dir := filepath.Join(s.Dir, "vp")
	virsh("pool-define-as", "vp", "dir", "--target", dir)
	virsh("pool-build", "vp")
	virsh("pool-start", "vp")
	volume := func(name string, data []byte) {
		t.Helper()
		f := filepath.Join(t.TempDir(), "data")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		virsh("vol-create-as", "vp", name, fmt.Sprint(len(data)), "--format", "raw")
		virsh("vol-upload", "--pool", "vp", name, f)
	}
	left := func(name string, partial bool, note []byte) {
		t.Helper()
		if partial {
			volume(name, bytes.Repeat([]byte{7}, 4096))
		}
		volume("."+name+".uploading", note)
	}
	left("seed-000000000000000a.iso", true, uploadNote(t, "gone", true))
	left("seed-000000000000000b.iso", false, uploadNote(t, "lab", false))
	left("seed-000000000000000c.iso", true, uploadNote(t, "keep", false))
	left("seed-000000000000000d.iso", true, uploadNote(t, "", false))
	left("old.raw", true, uploadNote(t, "", false))
	left("kept.raw", true, uploadNote(t, "", false))
	left("seed-000000000000000e.iso", true, uploadNote(t, "gone", false))
	volume("orphan-root", bytes.Repeat([]byte{7}, 4096))
	// Whole seeds: of a VM whose domain was undefined by hand, of VM k,
	// which keep declares (its apply takes the seed up again), and a
	// volume with a seed's name whose bytes are not a seed site made.
	for _, host := range []string{"gone-vm", "k"} {
		s := seed.Build(seed.Input{Hostname: host, UserData: "#cloud-config\n"})
		volume(s.Name, s.ISO)
	}
	volume("seed-00000000000000ff.iso", bytes.Repeat([]byte{7}, 8192))
	byhand := filepath.Join(t.TempDir(), "byhand.xml")
	if err := os.WriteFile(byhand, []byte(`<domain type="qemu"><name>byhand</name><memory>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>`+
		`<disk type="file" device="cdrom"><source file="`+filepath.Join(dir, "seed-000000000000000e.iso")+`"/><target dev="hdc" bus="ide"/><readonly/></disk></devices></domain>`), 0o644); err != nil {
		t.Fatal(err)
	}
	virsh("define", byhand)

	img := filepath.Join(t.TempDir(), "kept.raw")
	if err := os.WriteFile(img, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	site := siteSrc(`hosts: local: {uri: "qemu:///session", pools: vp: {type: "dir", path: "`+dir+`"}, images: "kept.raw": {pool: "vp", source: "`+img+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}},
		grant{tenant: "keep", domains: []string{"keep.example.test"}, hosts: []string{"local"}})
	specs := writeSpecs(t, site, map[string]string{})
	writeTenants(t, specs, map[string]string{
		"lab.cue": "package tenants\n\ntenants: lab: domain: \"lab.example.test\"\n",
		"keep.cue": "package tenants\n\ntenants: keep: {\n\tdomain: \"keep.example.test\"\n" +
			"\tvms: k: {host: \"local\", autostart: false, running: false, memory: \"64MiB\", disks: [{pool: \"vp\", name: \"k-root\", size: \"1MiB\"}]}\n}\n",
	})
	t.Chdir(specs)
	leftovers := func(want int) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run([]string{"leftovers"}, &stdout, &stderr); code != want {
			t.Fatalf("site leftovers: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	out := leftovers(exitChanges)
	golden.Check(t, filepath.Join(pkgDir, "testdata", "leftovers_uploads.golden"), []byte(strings.ReplaceAll(out, words.ShellQuote(s.URI), "SESSION")))
	for _, line := range strings.Split(out, "\n") {
		command := strings.TrimSpace(line)
		if !strings.HasPrefix(command, "virsh ") {
			continue
		}
		if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
	}
	if out := leftovers(exitOK); !strings.Contains(out, "Nothing left over on 0 providers and 1 host.") {
		t.Errorf("after the virsh commands:\n%s", out)
	}
}
