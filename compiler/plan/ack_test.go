package plan

import (
	"strings"
	"testing"
)

// TestParseAck: each command takes with --ack only its own gates; a
// misspelt one is refused with the nearest of them, a lower-case one
// with its spelling, another command's with that command's name.
func TestParseAck(t *testing.T) {
	for _, tc := range []struct {
		command, ack string
		want         Gate
		err          string
	}{
		{"apply", "GATE-DNS-OVERWRITE", GateDNSOverwrite, ""},
		{"unlock", "GATE-LOCK-BREAK", GateLockBreak, ""},
		{"disown", "GATE-DNS-DISOWN", GateDNSDisown, ""},
		{"apply", "GATE-LOCK-BREAK", "", "that gate is for site unlock, and site apply never uses it"},
		{"unlock", "GATE-DNS-OVERWRITE", "", "that gate is for site apply and site diff, and site unlock never uses it: drop it (site unlock takes GATE-LOCK-BREAK)"},
		{"apply", "GATE-DNS-OVERWRIT", "", "did you mean GATE-DNS-OVERWRITE?"},
		{"unlock", "OVERWRITE", "", `unknown gate "OVERWRITE": site unlock takes GATE-LOCK-BREAK`},
		{"apply", "gate-dns-overwrite", "", "gate ids are upper case: --ack GATE-DNS-OVERWRITE"},
		{"apply", "gate-lock-break", "", "that gate is for site unlock"},
	} {
		g, err := ParseAck(tc.command, tc.ack)
		if tc.err == "" {
			if err != nil || g != tc.want {
				t.Errorf("ParseAck(%s, %s) = %s, %v; want %s", tc.command, tc.ack, g, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseAck(%s, %s) error %v, want one containing %q", tc.command, tc.ack, err, tc.err)
		}
	}
	if got := GatesOf("unlock"); len(got) != 1 || got[0] != GateLockBreak {
		t.Errorf("GatesOf(unlock) = %v, want [GATE-LOCK-BREAK]", got)
	}
}

// TestWaitingGates: the gates stuck steps wait for, once each and
// sorted, or none when a step waits for no gate; named as a message
// names them.
func TestWaitingGates(t *testing.T) {
	for _, tc := range []struct {
		stuck []Blocked
		want  string
	}{
		{[]Blocked{{Gate: GateVMStop}, {Gate: GateSecretUnreachable}, {Gate: GateVMStop}}, "GATE-SECRET-UNREACHABLE and GATE-VM-STOP"},
		{[]Blocked{{Gate: GateSecretUnreachable}}, "GATE-SECRET-UNREACHABLE"},
		{[]Blocked{{Gate: GateVMStop}, {Gate: GateVMDestroy}, {Gate: GateNetDestroy}}, "GATE-NET-DESTROY, GATE-VM-DESTROY and GATE-VM-STOP"},
		{[]Blocked{{Gate: GateVMStop}, {}}, ""},
	} {
		gates := WaitingGates(tc.stuck)
		if got := JoinGates(gates); (gates == nil) != (tc.want == "") || gates != nil && got != tc.want {
			t.Errorf("WaitingGates(%v) = %v (%q), want %q", tc.stuck, gates, got, tc.want)
		}
	}
}

// TestAcksGate: a one-gate command's acks are each checked, and only
// its gate counts.
func TestAcksGate(t *testing.T) {
	for _, tc := range []struct {
		acks      []string
		want      bool
		errSubstr string
	}{
		{nil, false, ""},
		{[]string{"GATE-LOCK-BREAK"}, true, ""},
		{[]string{"GATE-LOCK-BREAK", "GATE-DNS-OVERWRITE"}, false, "site unlock never uses it"},
		{[]string{"gate-lock-brk"}, false, "did you mean GATE-LOCK-BREAK?"},
	} {
		got, err := AcksGate("unlock", tc.acks, GateLockBreak)
		if tc.errSubstr == "" && (err != nil || got != tc.want) || tc.errSubstr != "" && (err == nil || !strings.Contains(err.Error(), tc.errSubstr)) {
			t.Errorf("AcksGate(unlock, %v) = %v, %v; want %v, %q", tc.acks, got, err, tc.want, tc.errSubstr)
		}
	}
}
