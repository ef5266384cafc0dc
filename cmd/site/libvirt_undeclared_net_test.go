//go:build cgo && libvirt_dlopen

package main

import (
	"strings"
	"testing"
)

// TestUndeclaredNetworkIsItsOwnStep: a network the spec drops is found
// by its owner element and its removal is a step of its own, named like
// the step that made it (network/URI/NAME, as site graph names
// networks): site diff lists it under its own heading, not under the
// network still declared; a --target on the other network leaves it
// alone, and --target on its ID removes it, behind GATE-NET-DESTROY.
func TestUndeclaredNetworkIsItsOwnStep(t *testing.T) {
	s := systemDaemon(t)
	keep, old := s.Name("keep"), s.Name("old")
	keepCIDR, oldCIDR := s.CIDR(t), s.CIDR(t)
	lab := func(withOld bool) string {
		src := "package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n" +
			"\tnetworks: \"" + keep + "\": {host: \"kvm\", cidr: \"" + keepCIDR + "\", autostart: false}\n"
		if withOld {
			src += "\tnetworks: \"" + old + "\": {host: \"kvm\", cidr: \"" + oldCIDR + "\", autostart: false}\n"
		}
		return src + "}\n"
	}
	spec := writeSpec(t, systemLabSite(), "lab.cue", lab(true))
	site := specWriter(t, spec)
	defined := func(name string) bool {
		_, err := s.Virsh("net-info", name)
		return err == nil
	}
	site(exitOK, lab(true), "apply")

	keepID, oldID := "network/qemu:///system/"+keep, "network/qemu:///system/"+old
	out := site(exitChanges, lab(false), "diff", "--detailed-exitcode")
	t.Logf("diff:\n%s", out)
	if !strings.Contains(out, "# "+oldID+" (tenant lab)\n  - "+oldID+" ") {
		t.Errorf("diff does not list the removal of %s under its own step:\n%s", old, out)
	}
	if strings.Contains(out, "# "+keepID) {
		t.Errorf("diff lists the network still declared:\n%s", out)
	}
	if out := site(exitOK, lab(false), "apply", "--target", keepID); strings.Contains(out, old) {
		t.Errorf("apply --target on %s plans something for %s:\n%s", keep, old, out)
	}
	if !defined(old) {
		t.Fatalf("%s was destroyed by an apply that targeted %s", old, keep)
	}
	out = site(exitGated, lab(false), "apply", "--target", oldID)
	if !strings.Contains(out, "# "+oldID+" (tenant lab)") {
		t.Errorf("apply --target on %s does not show its removal under its own step:\n%s", old, out)
	}
	out = site(exitOK, lab(false), "apply", "--yes", "--target", oldID, "--ack", "GATE-NET-DESTROY")
	if !strings.Contains(out, "applied   "+oldID) {
		t.Errorf("the report does not name the removal's own step:\n%s", out)
	}
	if defined(old) {
		t.Errorf("%s is still defined", old)
	}
	if !defined(keep) {
		t.Errorf("%s went away", keep)
	}
	site(exitOK, lab(false), "diff", "--detailed-exitcode")
}
