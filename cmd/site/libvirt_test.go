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

	"github.com/site-tools/site/compiler/golden"
)

// labSpec is a tiny VM on the session daemon; memory and autostart vary.
func labSpec(memory string, autostart bool) string {
	a := "false"
	if autostart {
		a = "true"
	}
	return `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: tiny: {
		host:      "local"
		autostart: ` + a + `
		running:   true
		vcpus:     1
		memory:    "` + memory + `"
		disks: [{pool: "default", name: "tiny-data", size: "16MiB"}]
		cloudinit: user_data: """
			#cloud-config
			hostname: tiny
			"""
	}
}
`
}

// labSession starts a session libvirtd with its pool "default" started,
// points qemu:///session at it, and writes site.cue and lab.cue (labSpec
// with memory, autostart off) for tenant lab; it returns the daemon and
// lab.cue's path.
func labSession(t *testing.T, memory string) (*libvirttest.Session, string) {
	t.Helper()
	s := libvirttest.StartSession(t)
	for _, args := range [][]string{
		{"pool-define-as", "default", "dir", "--target", s.PoolDir},
		{"pool-start", "default"},
	} {
		if out, err := exec.Command("virsh", append([]string{"-c", s.URI}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("virsh %v: %v\n%s", args, err, out)
		}
	}
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	spec := writeSpec(t, siteSrc(`hosts: local: uri: "qemu:///session"`, grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", labSpec(memory, false))
	return s, spec
}

// TestVMDiffAndApplyThroughCLI runs site diff and site apply against a
// real session libvirtd with QEMU: a memory change is next-boot, an
// autostart change is live, and the restart that applies the pending
// change happens only with --restart and GATE-VM-RESTART.
func TestVMDiffAndApplyThroughCLI(t *testing.T) {
	s, spec := labSession(t, "64MiB")
	// The guest has no OS to honour a shutdown request: force it off.
	t.Setenv(libvirt.ShutdownTimeoutEnv, "0s")
	write := func(memory string, autostart bool) {
		if err := os.WriteFile(spec, []byte(labSpec(memory, autostart)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := specRunner(t, spec)
	check := func(name, got string) {
		t.Helper()
		golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_"+name+".golden"), []byte(got))
	}
	pid := func() int { return s.QEMUPID("tiny") }

	write("64MiB", false)
	check("create", site(exitOK, "apply"))
	before := pid()
	if before == 0 {
		t.Fatal("the guest does not run after apply")
	}

	write("128MiB", true)
	check("diff", site(exitChanges, "diff", "--detailed-exitcode"))
	site(exitOK, "apply")
	if got := pid(); got != before {
		t.Fatalf("apply restarted the guest: QEMU PID %d -> %d", before, got)
	}
	check("pending", site(exitChanges, "diff", "--detailed-exitcode"))
	check("restart_gated", site(exitGated, "apply", "--restart", "lab/tiny"))
	if got := pid(); got != before {
		t.Fatalf("apply without the gate restarted the guest: QEMU PID %d -> %d", before, got)
	}
	site(exitOK, "apply", "--yes", "--restart", "lab/tiny", "--ack", "GATE-VM-RESTART")
	after := pid()
	t.Logf("QEMU PID %d -> %d", before, after)
	if after == before || after == 0 {
		t.Fatalf("the guest did not restart: QEMU PID %d -> %d", before, after)
	}
	check("converged", site(exitOK, "diff", "--detailed-exitcode"))

	// A saved plan applies while the host is as it was observed ...
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(spec))
	write("128MiB", false)
	site(exitOK, "diff", "--out", planFile)
	site(exitOK, "apply", "--plan", planFile)
	// ... and is refused once someone changed the guest out of band: here
	// made the plan's change, so nothing is left to apply.
	write("128MiB", true)
	site(exitOK, "diff", "--out", planFile)
	if out, err := exec.Command("virsh", "-c", s.URI, "autostart", "tiny").CombinedOutput(); err != nil {
		t.Fatalf("virsh autostart: %v\n%s", err, out)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"apply", "--plan", planFile, spec}, &out, &errOut); code != exitError || !strings.Contains(errOut.String(), "vm/qemu:///session/tiny already matches the spec") {
		t.Fatalf("apply of a stale plan: exit %d, stderr:\n%s", code, errOut.String())
	}
	if got := pid(); got != after {
		t.Fatalf("QEMU PID %d -> %d during the plan-file runs", after, got)
	}
}
