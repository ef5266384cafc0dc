//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestRestartSaysItWaitsForTheGuest: a restart asks the guest to shut
// down and waits for it up to SITE_LIBVIRT_SHUTDOWN_TIMEOUT before
// forcing it off. That wait (2 minutes by default) printed nothing: the
// walkthrough's apply sat silent for two minutes. stderr now says what
// it waits for, how long, what comes after, and what it does then.
func TestRestartSaysItWaitsForTheGuest(t *testing.T) {
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
	// The guest has no OS to honour the request: it is forced off after this.
	t.Setenv(libvirt.ShutdownTimeoutEnv, "1s")
	spec := writeSpec(t, siteSrc(`hosts: local: uri: "qemu:///session"`, grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", labSpec("64MiB", false))
	site := specRunner(t, spec)
	site(exitOK, "apply")
	if err := os.WriteFile(spec, []byte(labSpec("128MiB", false)), 0o644); err != nil {
		t.Fatal(err)
	}
	site(exitOK, "apply")

	var out, errOut bytes.Buffer
	if code := run([]string{"apply", "--yes", "--restart", "lab/tiny", "--ack", "GATE-VM-RESTART", spec}, &out, &errOut); code != exitOK {
		t.Fatalf("apply --restart: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		"site: asked guest tiny on qemu:///session to shut down; waiting up to 1s (SITE_LIBVIRT_SHUTDOWN_TIMEOUT), then forcing it off",
		"site: guest tiny did not shut down within 1s: forcing it off",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut.String())
		}
	}
}
