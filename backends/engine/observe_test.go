package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

func TestPlanDependencyOrder(t *testing.T) {
	for _, par := range []int{1, 2, 4, 16} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) {
			g := mustGraph(t, testSpec())
			d := newTestDriver(map[string]*script{})
			if _, err := d.engine(par).Plan(context.Background(), g, runstate.Start(backends.NewRun())); err != nil {
				t.Fatal(err)
			}
			started, finished := map[string]int{}, map[string]int{}
			for i, c := range d.calls {
				verb, id, _ := strings.Cut(c, " ")
				switch verb {
				case "plan":
					started[id] = i
				case "done":
					finished[id] = i
				}
			}
			for _, s := range g.Steps {
				if _, ok := started[s.ID]; !ok {
					t.Fatalf("step %s was never planned", s.ID)
				}
				for _, dep := range s.Deps {
					// A zone observes without waiting for the VMs that
					// publish into it (graph.OnlyOrders); apply orders them.
					if graph.OnlyOrders(s, g.Step(dep)) {
						continue
					}
					if finished[dep] > started[s.ID] {
						t.Errorf("step %s planned (call %d) before its dependency %s finished (call %d); calls: %q",
							s.ID, started[s.ID], dep, finished[dep], d.calls)
					}
				}
			}
		})
	}
}

func TestParallelismBound(t *testing.T) {
	for _, tc := range []struct {
		parallelism, steps, want int
	}{
		{parallelism: 1, steps: 6, want: 1},
		{parallelism: 3, steps: 10, want: 3},
		{parallelism: 4, steps: 3, want: 3},
		{parallelism: 0, steps: 10, want: DefaultParallelism},
	} {
		t.Run(fmt.Sprintf("parallelism=%d,steps=%d", tc.parallelism, tc.steps), func(t *testing.T) {
			// synctest.Wait returns once every goroutine of the bubble is
			// blocked: the steps holding a slot wait in the driver, the
			// rest wait for a slot. Nothing is timed.
			synctest.Test(t, func(t *testing.T) {
				g := mustGraph(t, wideSpec(tc.steps))
				d := newTestDriver(map[string]*script{})
				d.hold = make(chan struct{})
				done := make(chan error)
				go func() {
					_, err := d.engine(tc.parallelism).Plan(context.Background(), g, runstate.Start(backends.NewRun()))
					done <- err
				}()
				synctest.Wait()
				d.mu.Lock()
				got := d.inFlight
				d.mu.Unlock()
				if got != tc.want {
					t.Errorf("%d steps planning at once, want %d", got, tc.want)
				}
				close(d.hold)
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if d.maxIn != tc.want {
					t.Errorf("at most %d steps planned at once, want %d", d.maxIn, tc.want)
				}
			})
		})
	}
}

func TestPlanBlocksUnobservedSteps(t *testing.T) {
	gated := &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: errors.New("no vault answered at http://127.0.0.1:1")}
	for _, tc := range []struct {
		name        string
		scripts     map[string]*script
		wantBlocked []plan.Blocked
		wantChanges []string
	}{
		{
			// The zone the VM publishes into is observed all the same:
			// it comes after the VM only to be applied after it (a diff
			// from where libvirt cannot be reached showed no DNS).
			name: "failed observation blocks the step and the dependents that need it",
			scripts: map[string]*script{
				stepNet:   {planErr: errors.New("connection refused")},
				stepZoneA: {changes: []plan.Change{change(stepZoneA, "old", plan.ActionDelete)}},
				stepZoneB: {changes: []plan.Change{change(stepZoneB, "www", plan.ActionCreate)}},
			},
			wantBlocked: []plan.Blocked{
				{Step: stepNet, Phase: plan.PhaseNetwork, Tenant: "a", Reason: "connection refused"},
				{Step: stepVM, Phase: plan.PhaseVM, Tenant: "a", Skipped: true,
					Reason: "not observed: it depends on " + stepNet + ", which was not planned"},
			},
			wantChanges: []string{stepZoneA + "/old", stepZoneB + "/www"},
		},
		{
			name: "a gated error carries its gate to the dependents",
			scripts: map[string]*script{
				stepSecret: {planErr: gated},
				stepZoneA:  {changes: []plan.Change{change(stepZoneA, "www", plan.ActionCreate)}},
			},
			wantBlocked: []plan.Blocked{
				{Step: stepZoneB, Phase: plan.PhaseDNS, Tenant: "b", Skipped: true, Gate: plan.GateSecretUnreachable,
					Reason: "not observed: it depends on " + stepSecret + ", which was not planned"},
				{Step: stepSecret, Phase: plan.PhaseSecrets, Gate: plan.GateSecretUnreachable,
					Reason: "no vault answered at http://127.0.0.1:1"},
			},
			wantChanges: []string{stepZoneA + "/www"},
		},
		{
			name:        "nothing blocked",
			scripts:     map[string]*script{stepZoneB: {changes: []plan.Change{change(stepZoneB, "www", plan.ActionCreate)}}},
			wantChanges: []string{stepZoneB + "/www"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGraph(t, testSpec())
			obs, err := newTestDriver(tc.scripts).engine(4).Plan(context.Background(), g, runstate.Start(backends.NewRun()))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(obs.Plan.Blocked, tc.wantBlocked, func(a, b plan.Blocked) bool { return a == b }) {
				t.Errorf("blocked:\ngot  %+v\nwant %+v", obs.Plan.Blocked, tc.wantBlocked)
			}
			var keys []string
			for _, c := range obs.Plan.Changes {
				keys = append(keys, c.Key)
			}
			if !slices.Equal(keys, tc.wantChanges) {
				t.Errorf("changes: got %q, want %q", keys, tc.wantChanges)
			}
			for _, b := range tc.wantBlocked {
				if _, ok := obs.Plan.Fingerprints[b.Step]; ok {
					t.Errorf("blocked step %s has a fingerprint: a saved plan would claim it was observed", b.Step)
				}
				if obs.Steps[b.Step] != nil {
					t.Errorf("blocked step %s has a backends.StepPlan Apply could carry out", b.Step)
				}
			}
		})
	}
}

func TestPlanFillsChangeStepPhaseTenant(t *testing.T) {
	g := mustGraph(t, testSpec())
	d := newTestDriver(map[string]*script{stepZoneA: {changes: []plan.Change{{Key: stepZoneA + "/www", Action: plan.ActionCreate}}}})
	obs, err := d.engine(2).Plan(context.Background(), g, runstate.Start(backends.NewRun()))
	if err != nil {
		t.Fatal(err)
	}
	got := obs.Plan.Changes[0]
	if got.Step != stepZoneA || got.Phase != plan.PhaseDNS || got.Tenant != "a" {
		t.Errorf("got step %q phase %q tenant %q, want %q %q %q", got.Step, got.Phase, got.Tenant, stepZoneA, plan.PhaseDNS, "a")
	}
	if obs.Plan.Fingerprints[stepZoneA] != "fp "+stepZoneA {
		t.Errorf("fingerprint: got %q, want %q", obs.Plan.Fingerprints[stepZoneA], "fp "+stepZoneA)
	}
}

func TestSecretReachesDependentAndIsRedacted(t *testing.T) {
	const token = "s3cr3t-cloudflare-token"
	g := mustGraph(t, testSpec())
	d := newTestDriver(map[string]*script{
		stepSecret: {secret: token},
		// A careless backend echoes the token in its error.
		stepZoneB: {needCred: true, planErr: fmt.Errorf("GET https://api.example/zones?token=%s: 403", token)},
	})
	obs, err := d.engine(4).Plan(context.Background(), g, runstate.Start(backends.NewRun()))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.creds[stepZoneB]; got != token {
		t.Errorf("credential seen by %s: got %q, want the secret read by %s", stepZoneB, got, stepSecret)
	}
	if len(obs.Plan.Blocked) != 1 {
		t.Fatalf("got blocked %+v, want only %s", obs.Plan.Blocked, stepZoneB)
	}
	if got, want := obs.Plan.Blocked[0].Reason, "GET https://api.example/zones?token=[redacted]: 403"; got != want {
		t.Errorf("blocked reason: got %q, want %q", got, want)
	}
}

func TestPlanWithoutDriverBlocks(t *testing.T) {
	g := mustGraph(t, testSpec())
	e := &Engine{DriverFor: func(s *graph.Step) (backends.Driver, error) {
		return nil, fmt.Errorf("step %s: this build of site has no backend for %s steps", s.ID, s.Phase)
	}}
	obs, err := e.Plan(context.Background(), g, runstate.Start(backends.NewRun()))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(obs.Plan.Blocked), len(g.Steps); got != want {
		t.Errorf("got %d blocked steps, want all %d", got, want)
	}
}

func TestOnlyScopesTheWalk(t *testing.T) {
	for _, tc := range []struct {
		only []plan.Phase
		want []string
	}{
		{only: []plan.Phase{plan.PhaseDNS}, want: []string{stepZoneA, stepSecret, stepZoneB}},
		{only: []plan.Phase{plan.PhaseNetwork, plan.PhaseVM}, want: []string{stepNet, stepVM}},
		{only: nil, want: []string{stepNet, stepVM, stepZoneA, stepSecret, stepZoneB}},
	} {
		t.Run(fmt.Sprint(tc.only), func(t *testing.T) {
			g := mustGraph(t, testSpec()).Only(tc.only)
			scripts := creates(stepNet, stepVM, stepZoneA, stepZoneB)
			d := newTestDriver(scripts)
			e := d.engine(4)
			planApply(t, e, g, runstate.Start(backends.NewRun()), runstate.Start(backends.NewRun()))
			var planned []string
			for _, c := range d.calls {
				if id, ok := strings.CutPrefix(c, "plan "); ok && !slices.Contains(planned, id) {
					planned = append(planned, id)
				}
			}
			slices.Sort(planned)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(planned, want) {
				t.Errorf("planned steps: got %q, want %q", planned, want)
			}
			var wantApplied []string
			for _, id := range want {
				if id != stepSecret {
					wantApplied = append(wantApplied, id)
				}
			}
			if got := d.applies(); !slices.Equal(got, wantApplied) {
				t.Errorf("applied steps: got %q, want %q", got, wantApplied)
			}
		})
	}
}

func TestEnvCredentialIsRedacted(t *testing.T) {
	const key, token = "pdns-api-key-0x5eed", "hvs.vault-token-77"
	g := mustGraph(t, testSpec())
	d := newTestDriver(map[string]*script{
		// Tenant b's store token leaks into the secret step's error.
		stepSecret: {planErr: &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: fmt.Errorf("login with %s refused", token)}},
		stepZoneA:  {changes: []plan.Change{change(stepZoneA, "www", plan.ActionCreate)}, applyErr: fmt.Errorf("PATCH with X-API-Key %s: 500", key)},
		stepNet:    {changes: []plan.Change{change(stepNet, "lan", plan.ActionCreate)}, notes: []string{"used " + key}},
	})
	run := runstate.Start(backends.NewRun())
	env := map[string]string{"PDNS_API_KEY": key, "VAULT_TOKEN": token}
	run.Getenv = func(name string) string { return env[name] }
	run.Acked[plan.GateSecretUnreachable] = true
	e := d.engine(4)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(context.Background(), g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	// Everything a user may read of the report: reasons, problems, notes.
	var text bytes.Buffer
	for _, s := range rep.Steps {
		text.WriteString(s.Reason + "\n")
		for _, l := range append(s.Problems, s.Notes...) {
			text.WriteString(l + "\n")
		}
	}
	for _, b := range obs.Plan.Blocked {
		text.WriteString(b.Reason + "\n")
	}
	for _, secret := range []string{key, token} {
		if strings.Contains(text.String(), secret) {
			t.Errorf("output shows a credential:\n%s", text.String())
		}
	}
	for _, want := range []string{"login with [redacted] refused", "PATCH with X-API-Key [redacted]: 500", "used [redacted]"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, text.String())
		}
	}
}

// BenchmarkEngine measures what the executor itself costs per run, with
// a driver that does no I/O: the walk, the bookkeeping and the plan.
func BenchmarkEngine(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		g, err := graph.Build(wideSpec(n))
		if err != nil {
			b.Fatal(err)
		}
		scripts := map[string]*script{}
		for _, s := range g.Steps {
			scripts[s.ID] = &script{changes: []plan.Change{change(s.ID, "www", plan.ActionCreate)}}
		}
		b.Run(fmt.Sprintf("plan+apply/steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := newTestDriver(scripts)
				e := d.engine(DefaultParallelism)
				run := runstate.Start(backends.NewRun())
				obs, err := e.Plan(context.Background(), g, run)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.Apply(context.Background(), g, obs, run); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
