//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestMemoryShrinkConvergesThroughCLI: shrinking a running guest's memory
// cannot happen live here (the guest boots no OS, so no balloon driver
// gives memory back). Every site apply exits 0 and says the change is
// pending, as a cron job needs (an apply that finds it written already
// reports the step pending, not applied), and site diff
// --detailed-exitcode exits 2 while it is.
func TestMemoryShrinkConvergesThroughCLI(t *testing.T) {
	s, spec := labSession(t, "128MiB")
	site := func(wantCode int, memory string, args ...string) string {
		t.Helper()
		if err := os.WriteFile(spec, []byte(labSpec(memory, false)), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if code := run(append(args, spec), &out, &errOut); code != wantCode {
			t.Fatalf("site %s (memory %s): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), memory, code, wantCode, out.String(), errOut.String())
		}
		return out.String()
	}

	site(exitOK, "128MiB", "apply")
	before := s.QEMUPID("tiny")
	for run := 1; run <= 2; run++ {
		out := site(exitOK, "64MiB", "apply")
		if !strings.Contains(out, "pending until the next boot") || !strings.Contains(out, "Apply complete") {
			t.Errorf("apply %d: got\n%s\nwant the change reported as pending and the apply complete", run, out)
		}
		// The second apply finds the change written already: it does
		// nothing, and must not report applied work.
		if run == 2 && (strings.Contains(out, "applied   vm/") || !strings.Contains(out, "pending   vm/qemu:///session/tiny: 1 change already written, waiting for the guest's next boot; nothing to do now") ||
			!strings.Contains(out, "Apply complete: 0 applied, 1 pending")) {
			t.Errorf("apply %d, with the change already written: got\n%s\nwant the step reported pending, not applied", run, out)
		}
	}
	if got := s.QEMUPID("tiny"); got != before {
		t.Fatalf("apply restarted the guest: QEMU PID %d -> %d", before, got)
	}
	if out := site(exitChanges, "64MiB", "diff", "--detailed-exitcode"); !strings.Contains(out, "[next-boot]") || strings.Contains(out, "[live]") {
		t.Errorf("diff after apply: got\n%s\nwant only the pending next-boot change", out)
	}
}
