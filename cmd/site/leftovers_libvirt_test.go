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
	"github.com/site-tools/site/compiler/words"
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
	// The daemon picks the UUIDs the commands name the leftovers by.
	masked := uuidPattern.ReplaceAllString(strings.ReplaceAll(out, words.ShellQuote(s.URI), "SESSION"), "UUID")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "leftovers_libvirt.golden"), []byte(masked))
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

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestLeftoversSaysAHostItCouldNotRead: a host that cannot be opened is
// said to be so, and the run exits 1: nothing is claimed of it.
func TestLeftoversSaysAHostItCouldNotRead(t *testing.T) {
	t.Setenv(libvirt.URIMapEnv, "")
	dir := writeSpecs(t, siteSrc(`hosts: lost: uri: "test://`+filepath.Join(t.TempDir(), "no-such-file.xml")+`"`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"lost"}}), map[string]string{})
	writeTenants(t, dir, map[string]string{"lab.cue": "package tenants\n\ntenants: lab: domain: \"lab.example.test\"\n"})
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run([]string{"leftovers"}, &stdout, &stderr)
	if code != exitError {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"host lost (test://", "could not be read, so nothing is known of it: ", "Nothing left over where site could read, but 1 provider, zone or host could not be read."} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, stdout.String(), stderr.String())
		}
	}
}
