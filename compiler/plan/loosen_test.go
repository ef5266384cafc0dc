package plan

import (
	"slices"
	"strings"
	"testing"
)

// TestLoosening: a saved plan's options that let apply do more than
// its defaults (a higher threshold, a restart, a deferring ack) are
// listed unless apply's own command line gives the same; a lower
// threshold only gates more and is not.
func TestLoosening(t *testing.T) {
	up := 50
	low := 10
	for _, tc := range []struct {
		name  string
		saved Options
		given []string // flags on apply's command line
		acks  []string
		want  []string // the words to add
	}{
		{"defaults", Options{DeleteThreshold: DefaultDeleteManyPercent}, nil, nil, nil},
		{"lower thresholds", Options{DeleteThreshold: 5, UpdateThreshold: &low}, nil, nil, nil},
		{"higher delete", Options{DeleteThreshold: 60}, nil, nil, []string{"--delete-threshold", "60"}},
		{"higher delete given", Options{DeleteThreshold: 60}, []string{"delete-threshold"}, nil, nil},
		{"higher update", Options{DeleteThreshold: DefaultDeleteManyPercent, UpdateThreshold: &up}, nil, nil, []string{"--update-threshold", "50"}},
		{"restart", Options{DeleteThreshold: DefaultDeleteManyPercent, Restart: []string{"a/vm 1"}}, nil, nil, []string{"--restart 'a/vm 1'"}},
		{"restart given", Options{DeleteThreshold: DefaultDeleteManyPercent, Restart: []string{"a/vm"}}, []string{"restart"}, nil, nil},
		{"ack", Options{DeleteThreshold: DefaultDeleteManyPercent, Acks: []Gate{GateSecretUnreachable}}, nil, nil, []string{"--ack", "GATE-SECRET-UNREACHABLE"}},
		{"ack given", Options{DeleteThreshold: DefaultDeleteManyPercent, Acks: []Gate{GateSecretUnreachable}}, nil, []string{"GATE-SECRET-UNREACHABLE"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			what, add := tc.saved.Loosening(func(f string) bool { return slices.Contains(tc.given, f) }, tc.acks)
			if !slices.Equal(add, tc.want) || len(what) > len(add) {
				t.Errorf("Loosening: what %q, add %q; want add %q", what, add, tc.want)
			}
			if len(tc.want) > 0 && !strings.Contains(strings.Join(what, " "), "(") {
				t.Errorf("Loosening says no reason: %q", what)
			}
		})
	}
}

// TestCheckAcks: a saved plan may record only acks that apply takes and
// that defer steps; a hand-edited one with another is refused.
func TestCheckAcks(t *testing.T) {
	for _, tc := range []struct {
		acks []Gate
		err  string
	}{
		{nil, ""},
		{[]Gate{GateSecretUnreachable}, ""},
		{[]Gate{GateLockBreak}, "records an ack site apply cannot take (--ack GATE-LOCK-BREAK: that gate is for site unlock"},
		{[]Gate{"GATE-NOPE"}, "records an ack site apply cannot take"},
		{[]Gate{GateSecretUnreachable, GateDNSOverwrite}, "records the ack GATE-DNS-OVERWRITE, which allows changes rather than deferring steps"},
	} {
		err := (&Options{Acks: tc.acks}).CheckAcks("plan.json")
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), "--plan plan.json records ") || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckAcks(%v) = %v, want %q", tc.acks, err, tc.err)
		}
	}
}

// TestDescribeScope: a saved plan's scope and restarts read as the
// flags that give them, so "differs from what the plan was saved with"
// names what to type.
func TestDescribeScope(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{DescribeOnly(nil), "every phase"},
		{DescribeOnly([]Phase{PhaseDNS, PhaseVM}), "--only dns,vm"},
		{DescribeTargets(nil), "every step"},
		{DescribeTargets([]string{"dns/a.example.", "vm/*/web 1"}), "--target dns/a.example. --target 'vm/*/web 1'"},
		{DescribeRestarts(nil), "no --restart"},
		{DescribeRestarts([]string{"a/vm 1"}), "--restart 'a/vm 1'"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
