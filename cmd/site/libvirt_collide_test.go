//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestAnotherTenantCannotHideARemoval: victim drops its VM db, and evil
// declares a VM db on the same host. Both steps would be named
// vm/HOST/db; a run of every tenant file still plans victim's removal
// (evil's declaration once replaced it, so a whole-repository diff
// showed no removal and apply never made it), and refuses evil's VM,
// naming victim's domain. The removal is a step of its own, which
// --target names to apply it.
func TestAnotherTenantCannotHideARemoval(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	vm := func(name string) string {
		return "\tvms: " + name + `: {host: "local", autostart: false, running: false, memory: "64MiB"}` + "\n"
	}
	tenant := func(name string, vms ...string) string {
		return "package tenants\n\ntenants: " + name + ": {\n\tdomain: \"" + name + ".example.test\"\n" + strings.Join(vms, "") + "}\n"
	}
	site := siteSrc(`hosts: local: uri: "qemu:///session"`,
		grant{tenant: "victim", domains: []string{"victim.example.test"}, hosts: []string{"local"}},
		grant{tenant: "evil", domains: []string{"evil.example.test"}, hosts: []string{"local"}})
	dir := writeSpecs(t, site, map[string]string{"victim.cue": tenant("victim", vm("db"), vm("web")), "evil.cue": tenant("evil")})
	siteAt := func(wantCode int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append(args, dir), &out, &errOut); code != wantCode {
			t.Fatalf("site %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out.String(), errOut.String())
		}
		return out.String()
	}
	siteAt(exitOK, "apply")

	for name, src := range map[string]string{"victim.cue": tenant("victim", vm("web")), "evil.cue": tenant("evil", vm("db"))} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := siteAt(exitError, "diff")
	for _, want := range []string{
		"the spec no longer declares this domain: undefine it",
		`domain db on qemu:///session belongs to tenant "victim", not "evil", and victim no longer declares it: its removal is step vm/qemu:///session/db@victim in a run of these PATHs; apply that first (those PATHs with --target 'vm/qemu:///session/db@victim' --ack GATE-VM-DESTROY)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff of every tenant lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "# vm/qemu:///session/db@victim (tenant victim)") {
		t.Errorf("victim's removal is not a step of its own beside evil's:\n%s", out)
	}
	// A run with a refused step changes nothing; the removal's own step
	// is named to apply it alone.
	siteAt(exitError, "apply", "--ack", "GATE-VM-DESTROY")
	out = siteAt(exitOK, "apply", "--yes", "--target", "vm/qemu:///session/db@victim", "--ack", "GATE-VM-DESTROY")
	if exec.Command("virsh", "-c", s.URI, "dominfo", "db").Run() == nil {
		t.Errorf("victim's dropped domain db is still defined after its removal was applied:\n%s", out)
	}
}
