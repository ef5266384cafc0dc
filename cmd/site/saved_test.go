package main

import (
	"slices"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

// TestPlanOptionsRecordWhatShapedThePlan: a saved plan keeps the
// threshold, the restarts, and only those acks that deferred a step it
// shows, so apply --plan defers the same steps and asks for the gates
// of the changes itself.
func TestPlanOptionsRecordWhatShapedThePlan(t *testing.T) {
	deferred := []plan.Blocked{{Step: "secret/lab/x#k", Gate: plan.GateSecretUnreachable}, {Step: "dns/lab.", Gate: plan.GateSecretUnreachable, Skipped: true}}
	for _, tc := range []struct {
		name    string
		blocked []plan.Blocked
		acks    []plan.Gate
		want    []plan.Gate
	}{
		{"an ack that deferred a step", deferred, []plan.Gate{plan.GateSecretUnreachable, plan.GateDNSOverwrite}, []plan.Gate{plan.GateSecretUnreachable}},
		{"an ack with nothing to defer", nil, []plan.Gate{plan.GateSecretUnreachable}, nil},
		{"a blocked step not acknowledged", deferred, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := backends.NewRun()
			run.DeleteManyPercent = 50
			run.Restart["sjc/keys"], run.Restart["office1/files"] = true, true
			for _, g := range tc.acks {
				run.Acked[g] = true
			}
			p := plan.New()
			p.Blocked = tc.blocked
			got := planOptions(p, run)
			if got.DeleteThreshold != 50 || !slices.Equal(got.Restart, []string{"office1/files", "sjc/keys"}) || !slices.Equal(got.Acks, tc.want) {
				t.Errorf("got %+v, want threshold 50, both restarts sorted and acks %q", got, tc.want)
			}
		})
	}
}
