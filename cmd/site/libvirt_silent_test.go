//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestDiffAgainstAStoppedDaemonEnds: site diff against a libvirtd
// stopped with SIGSTOP (its socket still accepts, nothing answers) ends
// on its own, with exit 1 and an error naming the host, the call, how
// long site waited and what to check. Before, it hung until someone
// interrupted it, which in CI nobody does.
func TestDiffAgainstAStoppedDaemonEnds(t *testing.T) {
	s, spec := labSession(t, "64MiB")
	s.Freeze(t)
	// Far above the open timeout: reaching it means diff would hang.
	const bound = 3 * time.Minute
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"diff", spec}, &out, &errOut) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(bound):
		t.Fatalf("site diff against a stopped daemon still runs after %s", bound)
	}
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	all := out.String() + errOut.String()
	for _, want := range []string{
		"libvirt host qemu:///session (as " + s.URI + ") did not answer NewConnect within 30s",
		"so site gave up on this host for the run",
		"virsh -c " + s.URI + " version",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", want, out.String(), errOut.String())
		}
	}
}
