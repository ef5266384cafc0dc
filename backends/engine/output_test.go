package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// tellingDriver tells, from each step, an Output naming the step and
// the call ("plan", "apply", "again" for the observation after its
// apply), and records the Inputs each call was given.
type tellingDriver struct {
	mu      sync.Mutex
	planned map[string]bool
	seen    map[string]string // "plan <id>" or "apply <id>" -> the inputs, rendered
}

func (d *tellingDriver) told(call, id string) backends.Output {
	return backends.Output{Signer: &backends.SignerDS{DS: []string{call + " " + id}}}
}

func (d *tellingDriver) note(call string, step *graph.Step, in backends.Inputs) {
	var got []string
	for _, z := range []string{"k.p.example.", "p.example.", "x.example."} {
		if s, ok := in.SignerOf(z); ok {
			got = append(got, z+"="+strings.Join(s.DS, ","))
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen[call+" "+step.ID] = strings.Join(got, " ")
}

func (d *tellingDriver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	d.mu.Lock()
	again := d.planned[step.ID]
	d.planned[step.ID] = true
	d.mu.Unlock()
	if again {
		return &backends.StepPlan{Output: d.told("again", step.ID)}, nil
	}
	d.note("plan", step, backends.InputsOf(ctx))
	return &backends.StepPlan{Output: d.told("plan", step.ID),
		Changes: []plan.Change{change(step.ID, "x", plan.ActionCreate)}}, nil
}

func (d *tellingDriver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	d.note("apply", sp.Step, backends.InputsOf(ctx))
	if sp.Step.ID == "dns/x.example." {
		return &backends.StepResult{}, nil // tells nothing new: its plan's Output stands
	}
	return &backends.StepResult{Output: d.told("apply", sp.Step.ID)}, nil
}

// TestOutputsReachOnlyDependents: what a signed child's step tells (its
// DS) reaches its parent's step, which depends on it, when the parent
// plans (the child's plan) and applies (what the child's apply said,
// then what observing it again said), and no other step, whatever
// order they run in: there is no shared store a step could read a
// non-dependency's word from.
func TestOutputsReachOnlyDependents(t *testing.T) {
	pdns := model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:1", APIKey: model.Credential{Env: "K"}}}
	child := &model.Zone{Tenant: "t", Name: "k.p.example.", DNSSEC: true, Provider: pdns}
	parent := &model.Zone{Tenant: "t", Name: "p.example.", Provider: pdns, SignedChildren: []*model.Zone{child}}
	other := &model.Zone{Tenant: "t", Name: "x.example.", Provider: pdns}
	g := mustGraph(t, &model.Spec{Tenants: []*model.Tenant{{Name: "t", Domain: "p.example.", Zones: []*model.Zone{child, parent, other}}}})
	for _, parallelism := range []int{1, 4} {
		t.Run(fmt.Sprint(parallelism), func(t *testing.T) {
			d := &tellingDriver{planned: map[string]bool{}, seen: map[string]string{}}
			e := &Engine{DriverFor: func(*graph.Step) (backends.Driver, error) { return d, nil }, Parallelism: parallelism}
			rep := planApply(t, e, g, runstate.Start(backends.NewRun()), runstate.Start(backends.NewRun()))
			if !rep.OK() {
				t.Fatalf("report not OK: %+v", rep.Steps)
			}
			want := map[string]string{
				"plan dns/k.p.example.":  "",
				"plan dns/x.example.":    "",
				"plan dns/p.example.":    "k.p.example.=plan dns/k.p.example.",
				"apply dns/k.p.example.": "",
				"apply dns/x.example.":   "",
				"apply dns/p.example.":   "k.p.example.=again dns/k.p.example.",
			}
			for call, w := range want {
				if got, ok := d.seen[call]; !ok || got != w {
					t.Errorf("%s was given %q, want %q", call, got, w)
				}
			}
		})
	}
}
