//go:build cgo && libvirt_dlopen

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/golden"
)

// TestUndeclaredDomainIsItsOwnStep: a domain the spec drops is found by
// its owner element and its removal is a step of its own, named like
// the step that made it: site diff lists it under its own heading (not
// under the VM that is still declared), --target names it, and a
// --target on the other VM leaves it alone.
func TestUndeclaredDomainIsItsOwnStep(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	vm := func(name string) string {
		return `	vms: ` + name + `: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
	}
`
	}
	lab := func(vms ...string) string {
		return "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n" + strings.Join(vms, "") + "}\n"
	}
	spec := writeSpec(t, siteSrc(`hosts: local: uri: "qemu:///session"`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", lab(vm("db"), vm("web")))
	site := specWriter(t, spec)
	defined := func(name string) bool {
		return exec.Command("virsh", "-c", s.URI, "dominfo", name).Run() == nil
	}
	site(exitOK, lab(vm("db"), vm("web")), "apply")

	out := site(exitChanges, lab(vm("web")), "diff", "--detailed-exitcode")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_undeclared.golden"), []byte(out))
	if out := site(exitOK, lab(vm("web")), "apply", "--target", "vm/qemu:///session/web"); strings.Contains(out, "/db") {
		t.Errorf("apply --target on web plans something for db:\n%s", out)
	}
	if !defined("db") {
		t.Fatal("db was undefined by an apply that targeted web")
	}
	out = site(exitGated, lab(vm("web")), "apply", "--target", "vm/qemu:///session/db")
	if !strings.Contains(out, "# vm/qemu:///session/db (tenant lab)") {
		t.Errorf("apply --target on db does not show its removal under its own step:\n%s", out)
	}
	out = site(exitOK, lab(vm("web")), "apply", "--yes", "--target", "vm/qemu:///session/db", "--ack", "GATE-VM-DESTROY")
	if !strings.Contains(out, "applied   vm/qemu:///session/db") {
		t.Errorf("the report does not name the removal's own step:\n%s", out)
	}
	if defined("db") {
		t.Error("db is still defined")
	}
	if !defined("web") {
		t.Error("web went away")
	}
	site(exitOK, lab(vm("web")), "diff", "--detailed-exitcode")
}
