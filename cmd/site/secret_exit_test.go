package main

import (
	"strings"
	"testing"
)

// TestUnreachableStoreExitsGatedInDiffAndApply: when no address of the
// store answers, the steps needing its secret wait for
// GATE-SECRET-UNREACHABLE, and diff and apply both exit 3 (blocked by a
// gate that was not acknowledged), each naming the gate and the command
// that acknowledges it. A secret the store answers is missing is no
// gate's business: both exit 1.
func TestUnreachableStoreExitsGatedInDiffAndApply(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	a, b := closedPort(t), closedPort(t)
	file := sjcFile(t, sjcLike(), []string{a, b}, cs.cf.URL)
	for _, tc := range []struct {
		args []string
		// ack is the command stderr must end with.
		ack string
	}{
		{[]string{"diff", file}, "site diff " + file + " --ack GATE-SECRET-UNREACHABLE"},
		{[]string{"diff", "--detailed-exitcode", file}, "site diff " + file + " --detailed-exitcode --ack GATE-SECRET-UNREACHABLE"},
		{[]string{"diff", "--format", "json", file}, "site diff " + file + " --format json --ack GATE-SECRET-UNREACHABLE"},
		{[]string{"apply", file}, "site apply " + file + " --ack GATE-SECRET-UNREACHABLE"},
	} {
		code, out, errOut := cs.site(t, tc.args...)
		if code != exitGated {
			t.Errorf("site %s: exit %d, want %d (a gate not acknowledged)\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, exitGated, out, errOut)
			continue
		}
		if got := strings.TrimSpace(errOut); !strings.HasSuffix(got, tc.ack) {
			t.Errorf("site %s: stderr does not end with %q:\n%s", strings.Join(tc.args, " "), tc.ack, errOut)
		}
	}

	// The store answers, the secret is not there: an error, not a gate.
	file = sjcFile(t, sjcLike(), []string{cs.vault.URL}, cs.cf.URL)
	cs.vault.Put("secret", "dns/cloudflare", map[string]any{"other": "x"})
	for _, args := range [][]string{{"diff", file}, {"apply", file}} {
		if code, out, errOut := cs.site(t, args...); code != exitError {
			t.Errorf("site %s with the key missing: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, exitError, out, errOut)
		}
	}
}
