package plan

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// Step IDs as graph names them; this package cannot import graph.
const (
	stepZoneA = "dns/a.example."
	stepZoneB = "dns/b.example."
	stepNet   = "network/test:///default/lan"
)

func TestCheckFresh(t *testing.T) {
	base := func() *Plan {
		p := New()
		p.Fingerprints = map[string]string{stepZoneA: "fp1", stepZoneB: "fp2"}
		p.Changes = []Change{{Key: stepZoneA + "/www.a.example./A", Step: stepZoneA, Phase: PhaseDNS,
			Action: ActionCreate, Impact: ImpactLive,
			After: map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.1"},
				// A struct marshals in field order; read back from a file
				// it is a map, which marshals in key order.
				"mx": struct {
					Priority int    `json:"priority"`
					Host     string `json:"host"`
				}{10, "mx.example.org."}}}}
		p.Notes = []Note{{Step: stepZoneB, Text: "DS for the parent: b.example. IN DS 2371 13 2 aa"}}
		return p
	}
	for _, tc := range []struct {
		name      string
		edit      func(fresh *Plan)
		wantSteps []StaleStep // nil: fresh
	}{
		{name: "same observation", edit: func(*Plan) {}},
		{name: "live zone changed", edit: func(p *Plan) { p.Fingerprints[stepZoneB] = "fp2'" }, wantSteps: []StaleStep{{stepZoneB, StaleLiveChanged, "its planned changes are the same: what changed is live data they do not write, such as another writer's record, which the plan's checks read"}}},
		{name: "live zone changed, changes planned still", edit: func(p *Plan) { p.Fingerprints[stepZoneA] = "fp1'" }, wantSteps: []StaleStep{{stepZoneA, StaleLiveChanged, "its planned changes are the same: what changed is live data they do not write, such as another writer's record, which the plan's checks read"}}},
		// A record written by hand meanwhile: the zone's fingerprint
		// and the record's planned change both differ, and the error
		// names the record.
		{name: "live record changed", edit: func(p *Plan) {
			p.Fingerprints[stepZoneA] = "fp1'"
			p.Changes[0].Action = ActionUpdate
			p.Changes[0].Before = map[string]any{"ttl": 300, "values": []string{"192.0.2.9"}}
		}, wantSteps: []StaleStep{{stepZoneA, StaleLiveChanged, "www.a.example./A was create, is update now"}}},
		// The plan applied once already: a second apply --plan finds the
		// zone changed and nothing left to do there.
		{name: "plan applied already", edit: func(p *Plan) {
			p.Fingerprints[stepZoneA] = "fp1'"
			p.Changes = nil
		}, wantSteps: []StaleStep{{stepZoneA, StaleAlreadyDone, ""}}},
		{name: "step no longer observed", edit: func(p *Plan) {
			delete(p.Fingerprints, stepZoneA)
			p.Changes = nil
			p.Blocked = []Blocked{{Step: stepZoneA, Reason: "connection refused"}}
		}, wantSteps: []StaleStep{{stepZoneA, StaleUnobserved, ""}}},
		{name: "step left out of scope", edit: func(p *Plan) {
			delete(p.Fingerprints, stepZoneB)
		}, wantSteps: []StaleStep{{stepZoneB, StaleOutOfScope, ""}}},
		{name: "new step in scope", edit: func(p *Plan) { p.Fingerprints[stepNet] = "fp3" }, wantSteps: []StaleStep{{stepNet, StaleNew, ""}}},
		{name: "spec edited", edit: func(p *Plan) { p.Changes[0].After["values"] = []string{"192.0.2.2"} }, wantSteps: []StaleStep{{stepZoneA, StaleChangesDiffer, "www.a.example./A create differs"}}},
		{name: "records added and dropped", edit: func(p *Plan) {
			for _, name := range []string{"d", "c", "b", "a"} {
				p.Changes = append(p.Changes, Change{Key: stepZoneA + "/" + name + ".a.example./TXT", Step: stepZoneA, Action: ActionCreate})
			}
			p.Changes = p.Changes[1:]
		}, wantSteps: []StaleStep{{stepZoneA, StaleChangesDiffer,
			"a.a.example./TXT create is planned now, not in the saved plan, b.a.example./TXT create is planned now, not in the saved plan, c.a.example./TXT create is planned now, not in the saved plan, and 2 more"}}},
		{name: "record no longer planned", edit: func(p *Plan) { p.Changes = nil },
			wantSteps: []StaleStep{{stepZoneA, StaleChangesDiffer, "www.a.example./A create is no longer planned"}}},
		{name: "DS note changed", edit: func(p *Plan) { p.Notes[0].Text = "DS for the parent: b.example. IN DS 4711 13 2 bb" },
			wantSteps: []StaleStep{{stepZoneB, StaleNotesDiffer, ""}}},
		{name: "note gone", edit: func(p *Plan) { p.Notes = nil }, wantSteps: []StaleStep{{stepZoneB, StaleNotesDiffer, ""}}},
		{name: "gate changed", edit: func(p *Plan) { p.Changes[0].Gates = []Gate{GateDNSOverwrite} }, wantSteps: []StaleStep{{stepZoneA, StaleChangesDiffer, "www.a.example./A create differs"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The saved plan goes through JSON as it does on disk, so
			// numbers and lists come back as other Go types.
			b, err := json.Marshal(base())
			if err != nil {
				t.Fatal(err)
			}
			saved := &Plan{}
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
				t.Errorf("stale steps: got %v, want %v", se.Steps, tc.wantSteps)
			}
		})
	}
}

func TestStalePlanErrorText(t *testing.T) {
	for _, tc := range []struct {
		steps []StaleStep
		want  string
	}{
		{[]StaleStep{{stepZoneA, StaleLiveChanged, ""}},
			"the plan is stale: dns/a.example. changed on the live system since the plan was saved; save a fresh one with site diff --out, review it and apply that"},
		{[]StaleStep{{stepZoneA, StaleChangesDiffer, "www.a.example./A create differs"}},
			"the plan is stale: dns/a.example. plans other changes now (was the spec edited?) (www.a.example./A create differs); save a fresh one with site diff --out, review it and apply that"},
		// Applied already: there is no fresh plan to save and apply.
		{[]StaleStep{{stepZoneA, StaleAlreadyDone, ""}},
			"the plan is stale: dns/a.example. already matches the spec: the plan was applied, or its changes were made another way, so nothing is left to apply for it; nothing to apply (site diff shows what the live systems hold now)"},
		{[]StaleStep{{stepZoneA, StaleAlreadyDone, ""}, {stepZoneB, StaleLiveChanged, ""}},
			"the plan is stale: dns/a.example. already matches the spec: the plan was applied, or its changes were made another way, so nothing is left to apply for it; dns/b.example. changed on the live system since the plan was saved; save a fresh one with site diff --out, review it and apply that"},
	} {
		if got := (&StalePlanError{Steps: tc.steps}).Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	err := &StalePlanError{Steps: []StaleStep{{stepZoneA, StaleLiveChanged, ""}}}
	if !err.Has(StaleLiveChanged) || err.Has(StaleChangesDiffer) {
		t.Errorf("Has: got %v for the step's own reason and %v for another, want true and false",
			err.Has(StaleLiveChanged), err.Has(StaleChangesDiffer))
	}
}

// TestStalePlanErrorShowsAForgedPlanEscaped: a saved plan is anyone's
// to write (a pull request may add one), and the stale plan's error
// quotes its step IDs and change keys on stderr: a newline there would
// start a line a workflow log runs as a command, an escape sequence
// would drive the reader's terminal. They are shown escaped, on one
// line.
func TestStalePlanErrorShowsAForgedPlanEscaped(t *testing.T) {
	const forged = "\n::error::forged\x1b[2J\u202e"
	saved := New()
	saved.Fingerprints = map[string]string{stepZoneA: "fp1", "dns/x." + forged: "fp2"}
	saved.Changes = []Change{{Key: stepZoneA + "/www" + forged + "/A", Step: stepZoneA, Action: ActionCreate}}
	fresh := New()
	fresh.Fingerprints = map[string]string{stepZoneA: "fp1"}
	err := CheckFresh(saved, fresh)
	if err == nil {
		t.Fatal("got fresh, want stale")
	}
	msg := err.Error()
	if i := strings.IndexFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.In(r, unicode.Cf) }); i >= 0 {
		t.Errorf("the error holds %q as it is: %q", msg[i:i+1], msg)
	}
	for _, want := range []string{`"dns/x.\n::error::forged\x1b[2J\u202e"`, `"www\n::error::forged\x1b[2J\u202e/A" create is no longer planned`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not show %s", msg, want)
		}
	}
}
