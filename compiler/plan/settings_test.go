package plan

import (
	"slices"
	"testing"
)

// (Moved from cmd/site/saved_test.go: planOptions became
// Settings.Saved.)

// TestPlanOptionsRecordWhatShapedThePlan: a saved plan keeps the
// threshold, the restarts, and only those acks that deferred a step it
// shows, so apply --plan defers the same steps and asks for the gates
// of the changes itself.
func TestPlanOptionsRecordWhatShapedThePlan(t *testing.T) {
	deferred := []Blocked{{Step: "secret/lab/x#k", Gate: GateSecretUnreachable}, {Step: "dns/lab.", Gate: GateSecretUnreachable, Skipped: true}}
	for _, tc := range []struct {
		name    string
		blocked []Blocked
		acks    []Gate
		want    []Gate
	}{
		{"an ack that deferred a step", deferred, []Gate{GateSecretUnreachable, GateDNSOverwrite}, []Gate{GateSecretUnreachable}},
		{"an ack with nothing to defer", nil, []Gate{GateSecretUnreachable}, nil},
		{"a blocked step not acknowledged", deferred, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := DefaultSettings()
			run.DeleteManyPercent = 50
			run.Restart["sjc/keys"], run.Restart["office1/files"] = true, true
			for _, g := range tc.acks {
				run.Acked[g] = true
			}
			got := run.Saved(tc.blocked)
			if got.DeleteThreshold != 50 || !slices.Equal(got.Restart, []string{"office1/files", "sjc/keys"}) || !slices.Equal(got.Acks, tc.want) {
				t.Errorf("got %+v, want threshold 50, both restarts sorted and acks %q", got, tc.want)
			}
		})
	}
}

// TestSavedSettingsComeBack: apply --plan plans with the settings diff
// saved (thresholds, restarts, the acks that deferred a step), and a
// plan saved before --update-threshold existed with its default.
func TestSavedSettingsComeBack(t *testing.T) {
	s := DefaultSettings()
	s.DeleteManyPercent, s.UpdateManyPercent = 60, 45
	s.Restart["sjc/keys"] = true
	s.Acked[GateSecretUnreachable], s.Acked[GateDNSOverwrite] = true, true
	got := s.Saved([]Blocked{{Step: "secret/lab/x#k", Gate: GateSecretUnreachable}}).Settings()
	if got.DeleteManyPercent != 60 || got.UpdateManyPercent != 45 || got.DeleteManyMin != DefaultDeleteManyMin ||
		!got.Restart["sjc/keys"] || len(got.Restart) != 1 || !got.Acked[GateSecretUnreachable] || len(got.Acked) != 1 {
		t.Errorf("got %+v back, want the thresholds, the restart and only the deferring ack", got)
	}
	old := (&Options{DeleteThreshold: 30}).Settings()
	if old.UpdateManyPercent != DefaultUpdateManyPercent {
		t.Errorf("a plan saved without update_threshold: got %d, want the default %d", old.UpdateManyPercent, DefaultUpdateManyPercent)
	}
}
