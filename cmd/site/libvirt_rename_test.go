package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestRenamedVMKeepsItsDisks: renaming a VM in the spec (web -> www,
// same disks) is, without a state file, the removal of web and a new
// domain www. The removal used to delete web's volumes, which www names
// as its disks, and www was defined beside web on the same disk: the
// walkthrough's rename lost both disks. Now www is refused while web
// still has its disk, naming the removal that frees it, and that
// removal keeps the volumes the spec names, so the second apply gives
// www web's disk with its data.
func TestRenamedVMKeepsItsDisks(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	pools := filepath.Join(s.Dir, "images")
	lab := func(name string) string {
		return "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n" + `	vms: ` + name + `: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "images", name: "web-data", size: "1MiB"}]
		cloudinit: user_data: "#cloud-config\n"
	}
}
`
	}
	spec := writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: images: {type: "dir", path: "`+pools+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", lab("web"))
	site := specWriter(t, spec)
	virsh := func(args ...string) error {
		return exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).Run()
	}
	site(exitOK, lab("web"), "apply")

	out := site(exitError, lab("www"), "diff", "--detailed-exitcode")
	for _, want := range []string{
		"volume images/web-data is attached to domain web",
		"which tenant lab no longer declares",
		"--target vm/qemu:///session/web --ack GATE-VM-DESTROY",
		"keeps images/web-data: the spec names it as a disk of VM www",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff after the rename does not say %q:\n%s", want, out)
		}
	}
	site(exitOK, lab("www"), "apply", "--target", "vm/qemu:///session/web", "--ack", "GATE-VM-DESTROY")
	if err := virsh("dominfo", "web"); err == nil {
		t.Error("web is still defined after its removal")
	}
	if err := virsh("vol-info", "--pool", "images", "web-data"); err != nil {
		t.Fatalf("the removal of web deleted web-data, which the spec names as www's disk: %v", err)
	}
	site(exitOK, lab("www"), "apply")
	if out, err := exec.Command("virsh", "-c", s.URI, "domblklist", "www").CombinedOutput(); err != nil || !strings.Contains(string(out), "web-data") {
		t.Errorf("www does not have web-data as its disk (%v):\n%s", err, out)
	}
	site(exitOK, lab("www"), "diff", "--detailed-exitcode")
}
