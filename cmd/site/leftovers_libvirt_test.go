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
	"github.com/site-tools/site/compiler/golden"
)

// TestLeftoversOnALibvirtHost: on a real session daemon, site leftovers
// reports the domains of a tenant that declares no VM on the host any
// more and of a tenant removed (file and grant gone), with the virsh
// commands that remove them, and not a domain of a tenant that still
// declares a VM there (its own diff plans that one's removal). Running
// the commands it printed leaves nothing over.
func TestLeftoversOnALibvirtHost(t *testing.T) {
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	vm := func(name string) string {
		return "\tvms: \"" + name + "\": {host: \"local\", autostart: false, running: false, memory: \"64MiB\"}\n"
	}
	tenant := func(name string, vms ...string) string {
		return "package tenants\n\ntenants: " + name + ": {\n\tdomain: \"" + name + ".example.test\"\n" + strings.Join(vms, "") + "}\n"
	}
	grants := func(names ...string) string {
		var gs []grant
		for _, n := range names {
			gs = append(gs, grant{tenant: n, domains: []string{n + ".example.test"}, hosts: []string{"local"}})
		}
		return siteSrc(`hosts: local: uri: "qemu:///session"`, gs...)
	}
	dir := writeSpecs(t, grants("lab", "gone", "keep"), map[string]string{})
	writeTenants(t, dir, map[string]string{
		"lab.cue":  tenant("lab", vm("lab-db"), vm("lab-web")),
		"gone.cue": tenant("gone", vm("gone-vm")),
		"keep.cue": tenant("keep", vm("keep-a"), vm("keep-b")),
	})
	t.Chdir(dir)
	site := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code, out, errOut := run(args, &stdout, &stderr), stdout.String(), stderr.String()
		if code != want {
			t.Fatalf("site %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}
	site(exitOK, "apply")
	site(exitOK, "leftovers")

	// lab declares nothing on the host any more, gone is removed, keep
	// drops one VM of two.
	writeTenants(t, dir, map[string]string{"lab.cue": tenant("lab"), "keep.cue": tenant("keep", vm("keep-a"))})
	if err := os.Remove(filepath.Join(dir, "tenants", "gone.cue")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(grants("lab", "keep")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := site(exitChanges, "leftovers")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "leftovers_libvirt.golden"), []byte(strings.ReplaceAll(out, shellQuote(s.URI), "SESSION")))
	for _, line := range strings.Split(out, "\n") {
		command := strings.TrimPrefix(line, "      ")
		if !strings.HasPrefix(command, "virsh ") {
			continue
		}
		// Through a shell, as the reader pastes it: the quoting counts.
		if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
			t.Fatalf("virsh %s: %v\n%s", command, err, out)
		}
	}
	if out := site(exitOK, "leftovers"); !strings.Contains(out, "Nothing left over on 0 providers and 1 host.") {
		t.Errorf("after the virsh commands:\n%s", out)
	}
}
