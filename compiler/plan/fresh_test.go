package backends

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/site-tools/site/compiler/plan"
)

func TestCheckFresh(t *testing.T) {
	base := func() *plan.Plan {
		p := plan.New()
		p.Fingerprints = map[string]string{stepZoneA: "fp1", stepZoneB: "fp2"}
		p.Changes = []plan.Change{{Key: stepZoneA + "/www.a.example./A", Step: stepZoneA, Phase: plan.PhaseDNS,
			Action: plan.ActionCreate, Impact: plan.ImpactLive,
			After: map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.1"},
				// A struct marshals in field order; read back from a file
				// it is a map, which marshals in key order.
				"mx": struct {
					Priority int    `json:"priority"`
					Host     string `json:"host"`
				}{10, "mx.example.org."}}}}
		return p
	}
	for _, tc := range []struct {
		name      string
		edit      func(fresh *plan.Plan)
		wantSteps []string // nil: fresh
	}{
		{name: "same observation", edit: func(*plan.Plan) {}},
		{name: "live zone changed", edit: func(p *plan.Plan) { p.Fingerprints[stepZoneB] = "fp2'" }, wantSteps: []string{stepZoneB}},
		{name: "step no longer observed", edit: func(p *plan.Plan) {
			delete(p.Fingerprints, stepZoneA)
			p.Changes = nil
			p.Blocked = []plan.Blocked{{Step: stepZoneA, Reason: "connection refused"}}
		}, wantSteps: []string{stepZoneA}},
		{name: "new step in scope", edit: func(p *plan.Plan) { p.Fingerprints[stepNet] = "fp3" }, wantSteps: []string{stepNet}},
		{name: "spec edited", edit: func(p *plan.Plan) { p.Changes[0].After["values"] = []string{"192.0.2.2"} }, wantSteps: []string{stepZoneA}},
		{name: "gate changed", edit: func(p *plan.Plan) { p.Changes[0].Gates = []plan.Gate{plan.GateDNSOverwrite} }, wantSteps: []string{stepZoneA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The saved plan goes through JSON as it does on disk, so
			// numbers and lists come back as other Go types.
			b, err := json.Marshal(base())
			if err != nil {
				t.Fatal(err)
			}
			saved := &plan.Plan{}
			if err := json.Unmarshal(b, saved); err != nil {
				t.Fatal(err)
			}
			fresh := base()
			tc.edit(fresh)
			err = CheckFresh(saved, fresh)
			if tc.wantSteps == nil {
				if err != nil {
					t.Fatalf("got %v, want fresh", err)
				}
				return
			}
			var se *StalePlanError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want *StalePlanError", err)
			}
			if !slices.Equal(se.Steps, tc.wantSteps) {
				t.Errorf("stale steps: got %q, want %q", se.Steps, tc.wantSteps)
			}
		})
	}
}

func TestStalePlanErrorText(t *testing.T) {
	err := &StalePlanError{Steps: []string{stepZoneA}, Details: []string{stepZoneA + " changed on the live system since the plan was saved"}}
	want := "the plan is stale: dns/a.example. changed on the live system since the plan was saved; run site diff again"
	if got := err.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
