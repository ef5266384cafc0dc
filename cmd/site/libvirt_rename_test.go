//go:build cgo && libvirt_dlopen

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// renameLab is tenant lab's spec with VM name on disk images/web-data
// (running as running says), and VM other, which keeps the tenant on
// the host once name is dropped.
func renameLab(name string, running bool) string {
	vm := ""
	if name != "" {
		r := "false"
		if running {
			r = "true"
		}
		vm = `	vms: ` + name + `: {
		host:      "local"
		autostart: false
		running:   ` + r + `
		memory:    "64MiB"
		disks: [{pool: "images", name: "web-data", size: "1MiB"}]
		cloudinit: user_data: "#cloud-config\n"
	}
`
	}
	return "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n" + vm + `	vms: other: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
	}
}
`
}

// renameSession starts a session daemon with pool images granted to
// tenant lab, and returns it with a runner for specs.
func renameSession(t *testing.T) (*libvirttest.Session, func(wantCode int, src string, args ...string) string) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	pools := filepath.Join(s.Dir, "images")
	spec := writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: images: {type: "dir", path: "`+pools+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", renameLab("web", false))
	return s, specWriter(t, spec)
}

// virshOut runs virsh against the session and returns its output.
func virshOut(s *libvirttest.Session, args ...string) (string, error) {
	out, err := exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).CombinedOutput()
	return string(out), err
}

// checkRenamedOwnsDisk checks that domain www has web-data as its disk,
// that its owner element lists it, that web is gone, and that dropping
// www from the spec then plans web-data's delete with it.
func checkRenamedOwnsDisk(t *testing.T, s *libvirttest.Session, site func(int, string, ...string) string, running bool) {
	t.Helper()
	if _, err := virshOut(s, "dominfo", "web"); err == nil {
		t.Error("web is still defined after the rename")
	}
	if out, err := virshOut(s, "domblklist", "www"); err != nil || !strings.Contains(out, "web-data") {
		t.Errorf("www does not have web-data as its disk (%v):\n%s", err, out)
	}
	if out, err := virshOut(s, "metadata", "www", libvirt.OwnerNS); err != nil || !strings.Contains(out, `name="web-data"`) {
		t.Errorf("www's owner element does not list web-data, the volume site made for web (%v):\n%s", err, out)
	}
	site(exitOK, renameLab("www", running), "diff", "--detailed-exitcode")
	out := site(exitChanges, renameLab("", false), "diff", "--detailed-exitcode")
	if !strings.Contains(out, "images/web-data") {
		t.Errorf("dropping www does not plan the delete of web-data, which site made:\n%s", out)
	}
}

// TestRenamedVMKeepsItsDisks: renaming a VM in the spec (web -> www,
// same disks) renames the shut-off domain (virDomainRename), so www
// keeps web's disks and the owner element that says site made them,
// in one run, with no gate. Before, web's removal (GATE-VM-DESTROY)
// kept the disks but took the owner element with it: www, defined in a
// second run, did not own them, and dropping www later left them
// behind unreported.
func TestRenamedVMKeepsItsDisks(t *testing.T) {
	s, site := renameSession(t)
	site(exitOK, renameLab("web", false), "apply")

	out := site(exitChanges, renameLab("www", false), "diff", "--detailed-exitcode")
	for _, want := range []string{
		"# vm/qemu:///session/www (tenant lab)",
		`name: "web" → "www"`,
		"virDomainRename",
		"step vm/qemu:///session/www renames this domain",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff after the rename does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "GATE-VM-DESTROY") {
		t.Errorf("renaming a shut-off domain asks for a gate:\n%s", out)
	}
	site(exitOK, renameLab("www", false), "apply")
	checkRenamedOwnsDisk(t, s, site, false)
}

// TestRenamedRunningVMNeedsTheRemovalGate: libvirt renames only a
// shut-off domain, so renaming a running one stops it first: an
// outage, behind GATE-VM-DESTROY like the removal it replaces; then
// www starts again.
func TestRenamedRunningVMNeedsTheRemovalGate(t *testing.T) {
	s, site := renameSession(t)
	t.Setenv(libvirt.ShutdownTimeoutEnv, "0s")
	site(exitOK, renameLab("web", true), "apply")

	out := site(exitGated, renameLab("www", true), "apply")
	if !strings.Contains(out, "needs GATE-VM-DESTROY") {
		t.Errorf("the rename of a running domain does not need GATE-VM-DESTROY:\n%s", out)
	}
	if out, err := virshOut(s, "domstate", "web"); err != nil || !strings.Contains(out, "running") {
		t.Fatalf("web is not running after an apply without the gate (%v): %s", err, out)
	}
	site(exitOK, renameLab("www", true), "apply", "--yes", "--ack", "GATE-VM-DESTROY")
	if out, err := virshOut(s, "domstate", "www"); err != nil || !strings.Contains(out, "running") {
		t.Errorf("www is not running after the rename (%v): %s", err, out)
	}
	checkRenamedOwnsDisk(t, s, site, true)
}
