//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/golden"
)

var domainType = regexp.MustCompile(`new domain \((kvm|qemu)\)`)

// TestApplyTargetVMCreatesItsPoolFirst: apply --target on one VM keeps
// the pool site.cue declares for its disk as a prerequisite, says so in
// the plan, and creates the pool before the disk; the VM not targeted
// is left alone.
func TestApplyTargetVMCreatesItsPoolFirst(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	pools := filepath.Join(s.Dir, "images")
	vm := func(name string) string {
		return `	vms: ` + name + `: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "images", name: "` + name + `-data", size: "1MiB"}]
	}
`
	}
	spec := writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: images: {type: "dir", path: "`+pools+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n"+vm("web")+vm("db")+"}\n")
	site := specRunner(t, spec)
	virsh := func(args ...string) error {
		return exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).Run()
	}

	out := site(exitOK, "diff", "--target", "vm/qemu:///session/web")
	if !strings.Contains(out, "prerequisites of the chosen steps:\n  pool/qemu:///session/images") {
		t.Errorf("diff --target does not list the pool as a prerequisite:\n%s", out)
	}
	// The daemon's directory is new each run, and the domain type is
	// kvm where the daemon may open /dev/kvm.
	norm := domainType.ReplaceAllString(strings.ReplaceAll(out, s.Dir, "$DIR"), "new domain (TYPE)")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_storage_target.golden"), []byte(norm))
	out = site(exitOK, "apply", "--target", "vm/qemu:///session/web")
	pool, web := strings.Index(out, "pool/qemu:///session/images"), strings.Index(out, "vm/qemu:///session/web")
	if pool < 0 || web < 0 {
		t.Fatalf("apply output names neither the pool nor the VM:\n%s", out)
	}
	if err := virsh("pool-info", "images"); err != nil {
		t.Errorf("pool images was not created: %v", err)
	}
	if err := virsh("vol-info", "--pool", "images", "web-data"); err != nil {
		t.Errorf("disk web-data was not made: %v", err)
	}
	if err := virsh("dominfo", "db"); err == nil {
		t.Errorf("VM db was defined, but only web was targeted")
	}
	site(exitOK, "apply", "--only", "vm")
	if err := virsh("dominfo", "db"); err != nil {
		t.Errorf("apply --only vm did not define db: %v", err)
	}
}

// TestInactivePoolDiffTellsTheTruth is the operator's walkthrough: a VM
// with an overlay disk on a declared image and a cloud-init seed in a
// declared pool converges; then the pool is stopped by hand (virsh
// pool-autostart --disable; virsh pool-destroy), its volumes' files left
// in its directory. site diff must neither start the pool nor claim to
// create volumes it could not read; the first apply converges without
// failing, and the next diff has nothing.
func TestInactivePoolDiffTellsTheTruth(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	pools := filepath.Join(s.Dir, "vp")
	img := filepath.Join(t.TempDir(), "boot.img")
	if err := os.WriteFile(img, bytes.Repeat([]byte{7}, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: vp: {type: "dir", path: "`+pools+`"}, images: "boot.img": {pool: "vp", source: "`+img+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: g1: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "vp", name: "g1-root", size: "4MiB", base: "boot.img"}]
		cloudinit: user_data: "#cloud-config\n"
	}
}
`)
	site := specRunner(t, spec)
	virsh := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("virsh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	site(exitOK, "apply")
	virsh("pool-autostart", "vp", "--disable")
	virsh("pool-destroy", "vp")

	out := site(exitChanges, "diff", "--detailed-exitcode")
	t.Logf("site diff with the pool stopped:\n%s", out)
	if strings.Contains(virsh("pool-info", "vp"), "running") {
		t.Errorf("site diff started the pool")
	}
	if strings.Contains(out, "+ volume/") {
		t.Errorf("diff claims to create volumes that are in the stopped pool:\n%s", out)
	}
	for _, v := range []string{"vp/boot.img", "vp/g1-root", "vp/seed-"} {
		if !strings.Contains(out, "~ volume/qemu:///session/"+v) {
			t.Errorf("diff does not show %s as read after the pool starts:\n%s", v, out)
		}
	}
	if !strings.Contains(out, "read after the pool starts") {
		t.Errorf("diff does not say when the volumes are read:\n%s", out)
	}
	norm := regexp.MustCompile(`seed-[0-9a-f]+\.iso`).ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(out, s.Dir, "$DIR"), img, "$IMG"), "seed-HASH.iso")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_storage_inactive.golden"), []byte(norm))

	out = site(exitOK, "apply")
	t.Logf("site apply with the pool stopped:\n%s", out)
	if !strings.Contains(virsh("pool-info", "vp"), "running") {
		t.Errorf("apply did not start the pool")
	}
	if out := site(exitOK, "diff", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("second diff:\n%s", out)
	}
}

// TestMissingPoolDiffTellsTheTruth is the operator's walkthrough: a VM
// with an overlay disk on a declared image, a data disk and a cloud-init
// seed in a declared pool converges; then the pool is undefined by hand
// (virsh pool-destroy; virsh pool-undefine), its files left in its
// directory, and the spec grows the data disk. site diff must not claim
// to create the volumes apply will find there once it has made the pool
// again: it reads the directory and shows what apply does with each
// (nothing for the image, the root disk and the seed; the data disk
// grows, behind its gate). apply without the gate changes nothing; with
// it, it converges, and the next diff has nothing.
func TestMissingPoolDiffTellsTheTruth(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	pools := filepath.Join(s.Dir, "vp")
	img := filepath.Join(t.TempDir(), "boot.img")
	if err := os.WriteFile(img, bytes.Repeat([]byte{7}, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	lab := func(dataSize string) string {
		return `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: g1: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "vp", name: "g1-root", size: "4MiB", base: "boot.img"}, {pool: "vp", name: "g1-data", size: "` + dataSize + `"}]
		cloudinit: user_data: "#cloud-config\n"
	}
}
`
	}
	spec := writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: vp: {type: "dir", path: "`+pools+`"}, images: "boot.img": {pool: "vp", source: "`+img+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", lab("4MiB"))
	site := specWriter(t, spec)
	virsh := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("virsh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	site(exitOK, lab("4MiB"), "apply")
	virsh("pool-destroy", "vp")
	virsh("pool-undefine", "vp")

	out := site(exitChanges, lab("8MiB"), "diff", "--detailed-exitcode")
	t.Logf("site diff with the pool undefined:\n%s", out)
	if strings.Contains(out, "+ volume/") {
		t.Errorf("diff claims to create volumes that are in the pool's directory:\n%s", out)
	}
	norm := regexp.MustCompile(`seed-[0-9a-f]+\.iso`).ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(out, s.Dir, "$DIR"), img, "$IMG"), "seed-HASH.iso")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_storage_missing.golden"), []byte(norm))

	site(exitGated, lab("8MiB"), "apply")
	if out, err := exec.Command("virsh", "-c", s.URI, "pool-info", "vp").CombinedOutput(); err == nil {
		t.Errorf("an apply without the disk's gate made the pool:\n%s", out)
	}
	site(exitOK, lab("8MiB"), "apply", "--yes", "--ack", "GATE-VM-DISK-RESIZE")
	if !strings.Contains(virsh("pool-info", "vp"), "running") {
		t.Errorf("apply did not make and start the pool")
	}
	if st, err := os.Stat(filepath.Join(pools, "g1-data")); err != nil || st.Size() != 8<<20 {
		t.Errorf("g1-data was not grown to 8MiB: %v", err)
	}
	if out := site(exitOK, lab("8MiB"), "diff", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("second diff:\n%s", out)
	}
}
