package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// statuses maps each step of a report to its status.
func statuses(r *Report) map[string]Status {
	out := map[string]Status{}
	for _, s := range r.Steps {
		out[s.Step] = s.Status
	}
	return out
}

func TestApplySkipsDependentsOfFailure(t *testing.T) {
	for _, tc := range []struct {
		name        string
		failing     string
		wantApplied []string
		want        map[string]Status
	}{
		{
			name:        "network fails: VM and zone a skipped, tenant b goes on",
			failing:     stepNet,
			wantApplied: []string{stepZoneB, stepNet},
			want: map[string]Status{stepNet: StatusFailed, stepVM: StatusSkipped, stepZoneA: StatusSkipped,
				stepSecret: StatusUnchanged, stepZoneB: StatusApplied},
		},
		{
			name:        "zone b fails: nothing depends on it",
			failing:     stepZoneB,
			wantApplied: []string{stepZoneA, stepZoneB, stepNet, stepVM},
			want: map[string]Status{stepNet: StatusApplied, stepVM: StatusApplied, stepZoneA: StatusApplied,
				stepSecret: StatusUnchanged, stepZoneB: StatusFailed},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			scripts := creates(stepNet, stepVM, stepZoneA, stepZoneB)
			for _, sc := range scripts {
				sc.requests = 1
			}
			scripts[tc.failing].applyErr = errors.New("HTTP 500 from the server")
			d := newTestDriver(scripts)
			e := d.engine(2)
			rep := planApply(t, e, g, runstate.Start(backends.NewRun()), runstate.Start(backends.NewRun()))
			slices.Sort(tc.wantApplied)
			if got := d.applies(); !slices.Equal(got, tc.wantApplied) {
				t.Errorf("Apply called for %q, want %q", got, tc.wantApplied)
			}
			got := statuses(rep)
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("step %s: got %q, want %q", id, got[id], want)
				}
			}
			if rep.OK() {
				t.Error("report is OK although a step failed")
			}
			for _, s := range rep.Steps {
				if s.Status == StatusFailed && s.Reason != "HTTP 500 from the server" {
					t.Errorf("failed step reason: got %q, want the backend's error", s.Reason)
				}
				// A 500 may follow the server acting: the dependency
				// did not complete, which is not "did not apply".
				if s.Status == StatusSkipped && (!strings.HasPrefix(s.Reason, "it depends on ") || !strings.HasSuffix(s.Reason, ", which did not complete")) {
					t.Errorf("skipped step %s reason: got %q, want it to depend on a step which did not complete", s.Step, s.Reason)
				}
			}
		})
	}
}

func TestGateBlocksBeforeAnyChange(t *testing.T) {
	for _, tc := range []struct {
		name        string
		acked       []plan.Gate
		wantMissing []plan.Gate
	}{
		{name: "nothing acknowledged", wantMissing: []plan.Gate{plan.GateDNSDeleteMany, plan.GateDNSOverwrite}},
		{name: "one of two acknowledged", acked: []plan.Gate{plan.GateDNSOverwrite}, wantMissing: []plan.Gate{plan.GateDNSDeleteMany}},
		{name: "both acknowledged", acked: []plan.Gate{plan.GateDNSOverwrite, plan.GateDNSDeleteMany}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			d := newTestDriver(map[string]*script{
				// Ungated changes come first in the graph: they too must
				// wait until every gate in scope is acknowledged.
				stepNet:   {changes: []plan.Change{change(stepNet, "lan", plan.ActionCreate)}},
				stepZoneA: {changes: []plan.Change{change(stepZoneA, "www.a.example./A", plan.ActionUpdate, plan.GateDNSOverwrite)}},
				stepZoneB: {changes: []plan.Change{change(stepZoneB, "old.b.example./A", plan.ActionDelete, plan.GateDNSDeleteMany)}},
			})
			e := d.engine(4)
			run := runstate.Start(backends.NewRun())
			for _, a := range tc.acked {
				run.Acked[a] = true
			}
			obs, err := e.Plan(context.Background(), g, run)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := e.Apply(context.Background(), g, obs, run)
			if tc.wantMissing == nil {
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				if !rep.OK() || len(d.applies()) != 3 {
					t.Errorf("with every gate acknowledged: OK %v, applied %q; want OK and 3 steps", rep.OK(), d.applies())
				}
				return
			}
			var gm *GatesMissingError
			if !errors.As(err, &gm) {
				t.Fatalf("Apply: got %v, want *GatesMissingError", err)
			}
			if !slices.Equal(gm.Missing, tc.wantMissing) {
				t.Errorf("missing: got %q, want %q", gm.Missing, tc.wantMissing)
			}
			if got := d.applies(); len(got) != 0 {
				t.Errorf("Apply called for %q before every gate was acknowledged", got)
			}
			msg := gm.Error()
			for _, gate := range tc.wantMissing {
				if !strings.Contains(msg, "--ack "+string(gate)) {
					t.Errorf("message does not say how to acknowledge %s:\n%s", gate, msg)
				}
			}
			if slices.Contains(tc.wantMissing, plan.GateDNSOverwrite) && !strings.Contains(msg, "update "+stepZoneA+"/www.a.example./A [live]") {
				t.Errorf("message does not name the change behind GATE-DNS-OVERWRITE:\n%s", msg)
			}
		})
	}
}

func TestGatesMissingErrorText(t *testing.T) {
	p := plan.New()
	p.Changes = []plan.Change{{Key: "dns/a.example./www.a.example./A", Step: stepZoneA, Action: plan.ActionUpdate,
		Impact: plan.ImpactOverwrite, Gates: []plan.Gate{plan.GateDNSOverwrite}, Reason: "foreign A record with other content"}}
	p.Blocked = []plan.Blocked{{Step: stepSecret, Reason: "no vault answered: tried http://10.0.0.1:8200", Gate: plan.GateSecretUnreachable}}
	err := &GatesMissingError{Missing: p.Missing(nil), Plan: p, Command: "site apply tenants/b.cue"}
	want := `2 gates are not acknowledged, so nothing was changed:
  GATE-DNS-OVERWRITE (replace DNS data that site did not write):
    update dns/a.example./www.a.example./A [overwrite]: foreign A record with other content
  GATE-SECRET-UNREACHABLE (defer the steps whose secret cannot be read, and go on with the rest):
    secret/bao/dns/cf#token: not observed: no vault answered: tried http://10.0.0.1:8200
to acknowledge, run: site apply tenants/b.cue --ack GATE-DNS-OVERWRITE --ack GATE-SECRET-UNREACHABLE`
	if got := err.Error(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	wantHint := hint.Hint{Kind: hint.Acknowledge, Gate: string(plan.GateDNSOverwrite), Command: "site apply tenants/b.cue",
		Spec: "--ack GATE-DNS-OVERWRITE --ack GATE-SECRET-UNREACHABLE"}
	if h := hint.Of(err); h != wantHint {
		t.Errorf("hint %+v, want %+v", h, wantHint)
	}
}

func TestGatedBlockedStepIsDeferred(t *testing.T) {
	unreachable := &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: errors.New("no vault answered")}
	for _, tc := range []struct {
		name    string
		ack     bool
		wantErr string // "" = applies
	}{
		{name: "without ack nothing is applied", wantErr: "GatesMissing"},
		{name: "with ack the rest applies", ack: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			d := newTestDriver(map[string]*script{
				stepSecret: {planErr: unreachable},
				stepZoneA:  {changes: []plan.Change{change(stepZoneA, "www", plan.ActionCreate)}},
			})
			e := d.engine(4)
			run := runstate.Start(backends.NewRun())
			run.Acked[plan.GateSecretUnreachable] = tc.ack
			obs, err := e.Plan(context.Background(), g, run)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := e.Apply(context.Background(), g, obs, run)
			if tc.wantErr != "" {
				var gm *GatesMissingError
				if !errors.As(err, &gm) {
					t.Fatalf("got %v, want *GatesMissingError", err)
				}
				if len(d.applies()) != 0 {
					t.Errorf("Apply called for %q", d.applies())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]Status{stepSecret: StatusDeferred, stepZoneB: StatusDeferred, stepZoneA: StatusApplied,
				stepNet: StatusUnchanged, stepVM: StatusUnchanged}
			if got := statuses(rep); !maps.Equal(got, want) {
				t.Errorf("statuses: got %v, want %v", got, want)
			}
			if !rep.OK() {
				t.Error("a deferred step made the report fail; deferring is what the user asked for")
			}
		})
	}
}

func TestBlockedStepWithoutGateRefusesApply(t *testing.T) {
	g := mustGraph(t, testSpec())
	d := newTestDriver(map[string]*script{
		stepZoneB: {planErr: errors.New("GET zone b.example.: connection refused")},
		stepZoneA: {changes: []plan.Change{change(stepZoneA, "www", plan.ActionCreate)}},
	})
	e := d.engine(4)
	obs, err := e.Plan(context.Background(), g, runstate.Start(backends.NewRun()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Apply(context.Background(), g, obs, runstate.Start(backends.NewRun()))
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want *BlockedError", err)
	}
	if len(be.Blocked) != 1 || be.Blocked[0].Step != stepZoneB {
		t.Errorf("blocked: got %+v, want only %s", be.Blocked, stepZoneB)
	}
	if !strings.Contains(be.Error(), "connection refused") {
		t.Errorf("message does not say why: %s", be.Error())
	}
	if len(d.applies()) != 0 {
		t.Errorf("Apply called for %q although a step in scope was not observed", d.applies())
	}
}

func TestApplyReobserves(t *testing.T) {
	pending := plan.Change{Key: stepVM + "/memory", Action: plan.ActionUpdate, Impact: plan.ImpactNextBoot}
	stuck := change(stepZoneA, "www", plan.ActionCreate)
	for _, tc := range []struct {
		name         string
		sc           script
		wantOK       bool
		wantProblems []string
		wantNotes    []string
	}{
		{name: "converged", sc: script{notes: []string{"verified 1 name"}}, wantOK: true, wantNotes: []string{"verified 1 name"}},
		{name: "still planned", sc: script{residual: []plan.Change{stuck}},
			wantProblems: []string{"not converged: observing again still plans to create " + stepZoneA + "/www"}},
		{name: "pending until next boot is a note", sc: script{residual: []plan.Change{pending}}, wantOK: true,
			wantNotes: []string{"pending until the next boot: update " + stepVM + "/memory"}},
		// Two pending changes of one key (a VM's memory and vCPUs) are
		// two notes that say which; the same one twice is one note.
		{name: "pending changes of one key name their fields", sc: script{residual: []plan.Change{
			{Key: stepVM, Action: plan.ActionUpdate, Impact: plan.ImpactNextBoot, Before: map[string]any{"memory": "64MiB"}, After: map[string]any{"memory": "128MiB"}},
			{Key: stepVM, Action: plan.ActionUpdate, Impact: plan.ImpactNextBoot, Before: map[string]any{"vcpus": 1, "memory": "64MiB"}, After: map[string]any{"vcpus": 2, "memory": "64MiB"}},
			{Key: stepVM, Action: plan.ActionUpdate, Impact: plan.ImpactNextBoot, Before: map[string]any{"vcpus": 1}, After: map[string]any{"vcpus": 2}},
		}}, wantOK: true,
			wantNotes: []string{"pending until the next boot: update " + stepVM + " (memory)", "pending until the next boot: update " + stepVM + " (vcpus)"}},
		{name: "backend problem", sc: script{problems: []string{"www.a.example. answers 192.0.2.9, want 192.0.2.1"}},
			wantProblems: []string{"www.a.example. answers 192.0.2.9, want 192.0.2.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			sc := tc.sc
			sc.changes = []plan.Change{change(stepZoneA, "www", plan.ActionCreate)}
			d := newTestDriver(map[string]*script{stepZoneA: &sc})
			e := d.engine(4)
			rep := planApply(t, e, g, runstate.Start(backends.NewRun()), runstate.Start(backends.NewRun()))
			var got StepReport
			for _, s := range rep.Steps {
				if s.Step == stepZoneA {
					got = s
				}
			}
			if rep.OK() != tc.wantOK {
				t.Errorf("OK: got %v, want %v", rep.OK(), tc.wantOK)
			}
			if !slices.Equal(got.Problems, tc.wantProblems) {
				t.Errorf("problems: got %q, want %q", got.Problems, tc.wantProblems)
			}
			if !slices.Equal(got.Notes, tc.wantNotes) {
				t.Errorf("notes: got %q, want %q", got.Notes, tc.wantNotes)
			}
		})
	}
}

func TestApplyRefusesForeignObservation(t *testing.T) {
	g := mustGraph(t, testSpec())
	other := mustGraph(t, wideSpec(2))
	d := newTestDriver(map[string]*script{})
	e := d.engine(2)
	obs, err := e.Plan(context.Background(), other, runstate.Start(backends.NewRun()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(context.Background(), g, obs, runstate.Start(backends.NewRun())); err == nil || !strings.Contains(err.Error(), "not observed in this plan") {
		t.Errorf("got %v, want an error that the steps were not observed", err)
	}
}

func TestBackendPanicIsContained(t *testing.T) {
	for _, tc := range []struct {
		name   string
		panics string
		want   map[string]Status
	}{
		{name: "while observing", panics: "plan"},
		{name: "while applying", panics: "apply", want: map[string]Status{
			stepNet: StatusFailed, stepVM: StatusSkipped, stepZoneA: StatusSkipped, stepSecret: StatusUnchanged, stepZoneB: StatusApplied}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			scripts := creates(stepNet, stepVM, stepZoneA, stepZoneB)
			scripts[stepNet].panics = tc.panics
			d := newTestDriver(scripts)
			e := d.engine(4)
			obs, err := e.Plan(context.Background(), g, runstate.Start(backends.NewRun()))
			if err != nil {
				t.Fatal(err)
			}
			if tc.panics == "plan" {
				// Zone a, which the VM only comes before, is observed.
				if len(obs.Plan.Blocked) != 2 || !strings.Contains(obs.Plan.Blocked[0].Reason, "panicked while observing") {
					t.Errorf("blocked: got %+v, want the network and VM blocked by the panic", obs.Plan.Blocked)
				}
				return
			}
			rep, err := e.Apply(context.Background(), g, obs, runstate.Start(backends.NewRun()))
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(rep); !maps.Equal(got, tc.want) {
				t.Errorf("statuses: got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUngatedBlockedStepComesBeforeMissingGates pins the order of the
// refusals: when one step cannot be observed and no gate could defer it,
// apply says so (exit 1) instead of asking for the gates of the others,
// whose "to acknowledge, run: ..." command would still fail.
func TestUngatedBlockedStepComesBeforeMissingGates(t *testing.T) {
	unreachable := &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: errors.New("no vault answered")}
	for _, tc := range []struct {
		name      string
		ack       bool
		wantSteps []string
	}{
		{name: "gate not acknowledged", wantSteps: []string{stepZoneA, stepZoneB, stepSecret}},
		{name: "gate acknowledged", ack: true, wantSteps: []string{stepZoneA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			d := newTestDriver(map[string]*script{
				stepSecret: {planErr: unreachable},
				stepZoneA:  {planErr: errors.New("GET zone a.example.: connection refused")},
			})
			e := d.engine(4)
			run := runstate.Start(backends.NewRun())
			run.Acked[plan.GateSecretUnreachable] = tc.ack
			obs, err := e.Plan(context.Background(), g, run)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Apply(context.Background(), g, obs, run)
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want *BlockedError", err)
			}
			var got []string
			for _, b := range be.Blocked {
				got = append(got, b.Step)
			}
			want := slices.Clone(tc.wantSteps)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("blocked steps: got %q, want %q", got, want)
			}
			hint := "--ack " + string(plan.GateSecretUnreachable)
			if gotHint := strings.Contains(be.Error(), hint); gotHint == tc.ack {
				t.Errorf("message mentions %q: %v, want %v:\n%s", hint, gotHint, !tc.ack, be.Error())
			}
			if len(d.applies()) != 0 {
				t.Errorf("Apply called for %q although a step in scope was not observed", d.applies())
			}
		})
	}
}

// TestApplyCountsReadsWritesAndQueries: the report keeps what a driver
// said it read, wrote and asked over DNS apart (issue 13: the summary
// counted one number and left out the re-observation), and counts a
// driver that does not tell reads from writes as requests.
func TestApplyCountsReadsWritesAndQueries(t *testing.T) {
	g := mustGraph(t, testSpec())
	scripts := creates(stepNet, stepVM, stepZoneA, stepZoneB)
	scripts[stepZoneA].requests, scripts[stepZoneA].reads, scripts[stepZoneA].writes, scripts[stepZoneA].queries = 2, 1, 1, 1
	scripts[stepZoneB].requests, scripts[stepZoneB].reads, scripts[stepZoneB].writes, scripts[stepZoneB].queries = 2, 1, 1, 1
	// Observing again after apply reads once more (issue 13: that read
	// was in no count).
	scripts[stepZoneA].planReads, scripts[stepZoneB].planReads = 1, 1
	scripts[stepVM].requests = 11
	d := newTestDriver(scripts)
	e := d.engine(2)
	rep := planApply(t, e, g, runstate.Start(backends.NewRun()), runstate.Start(backends.NewRun()))
	for _, s := range rep.Steps {
		if s.Step == stepZoneA && (s.Reads != 2 || s.Writes != 1 || s.Queries != 1 || s.Requests != 3) {
			t.Errorf("%s: got %+v, want 2 reads, 1 write, 1 query of 3 requests", s.Step, s)
		}
	}
	reads, writes, unsplit, queries := rep.Calls()
	if reads != 4 || writes != 2 || unsplit != 11 || queries != 2 {
		t.Errorf("got %d reads, %d writes, %d requests, %d queries; want 4, 2, 11, 2", reads, writes, unsplit, queries)
	}
}
