package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file holds the executor's test double: a backends.Driver that plays a
// script per step and records every call. It stands in for the real
// backends, which have their own tests against real servers; here only
// the walk, the gates and the bookkeeping are under test.

// script says how the test driver answers for one step.
type script struct {
	planErr  error         // Plan fails with this
	changes  []plan.Change // what Plan returns until Apply ran
	residual []plan.Change // what Plan returns after Apply (nil: converged)
	applyErr error
	problems []string
	notes    []string
	requests int
	// reads, writes and queries, when set, are what Apply reports
	// beside requests.
	reads, writes, queries int
	planReads              int    // what Plan says it read
	secret                 string // Plan calls runstate.Secrets(run).SetSecret(step, secret) when set
	needCred               bool   // Plan resolves the step's zone credential first
	panics                 string // "plan" or "apply": that call panics
	// interrupts makes Apply call run.Interrupt, as a Ctrl-C while the
	// step is in flight would.
	interrupts bool
	// stuck makes Plan block on this channel whatever its context says,
	// as a libvirt call into a daemon that stopped answering does.
	stuck chan struct{}
}

type testDriver struct {
	mu      sync.Mutex
	scripts map[string]*script
	calls   []string // "plan <id>", "apply <id>", "done <id>" in order
	applied map[string]bool
	creds   map[string]string // step -> credential seen by Plan

	// hold, when set, keeps every Plan waiting until it is closed, so a
	// test can count how many steps the engine runs at once.
	hold     chan struct{}
	inFlight int
	maxIn    int
}

func newTestDriver(scripts map[string]*script) *testDriver {
	return &testDriver{scripts: scripts, applied: map[string]bool{}, creds: map[string]string{}}
}

// waitPlanning waits until Plan was called for step id.
func (d *testDriver) waitPlanning(t *testing.T, id string) {
	t.Helper()
	for range 20000 {
		d.mu.Lock()
		called := slices.Contains(d.calls, "plan "+id)
		d.mu.Unlock()
		if called {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("Plan was not called for %s", id)
}

func (d *testDriver) record(s string) {
	d.mu.Lock()
	d.calls = append(d.calls, s)
	d.mu.Unlock()
}

func (d *testDriver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	d.mu.Lock()
	d.calls = append(d.calls, "plan "+step.ID)
	d.inFlight++
	d.maxIn = max(d.maxIn, d.inFlight)
	d.mu.Unlock()
	if d.hold != nil {
		select {
		case <-d.hold:
		case <-ctx.Done():
		}
	}
	d.mu.Lock()
	d.inFlight--
	sc := d.scripts[step.ID]
	applied := d.applied[step.ID]
	d.calls = append(d.calls, "done "+step.ID)
	d.mu.Unlock()

	if sc == nil {
		sc = &script{}
	}
	if sc.stuck != nil {
		<-sc.stuck
	}
	if sc.panics == "plan" {
		panic("index out of range [3] with length 3")
	}
	if sc.secret != "" {
		runstate.Secrets(run).SetSecret(step.ID, sc.secret)
	}
	if sc.needCred {
		v, err := runstate.Credentials(run).Credential(run.Getenv, step.Zone.Provider.Cloudflare.Token)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.creds[step.ID] = v
		d.mu.Unlock()
	}
	if sc.planErr != nil {
		// A real backend may have half a plan when it fails; the engine
		// must not use it.
		return &backends.StepPlan{Changes: []plan.Change{{Key: step.ID + "/half", Action: plan.ActionDelete}}}, sc.planErr
	}
	sp := &backends.StepPlan{Fingerprint: "fp " + step.ID, Reads: sc.planReads}
	if applied {
		sp.Changes = sc.residual
		sp.Fingerprint += " after"
	} else {
		sp.Changes = sc.changes
	}
	return sp, nil
}

func (d *testDriver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	d.record("apply " + sp.Step.ID)
	sc := d.scripts[sp.Step.ID]
	if sc.panics == "apply" {
		panic("nil map")
	}
	if sc.interrupts {
		runstate.Interrupts(run).Interrupt()
	}
	if sc.applyErr != nil {
		return &backends.StepResult{Requests: sc.requests}, sc.applyErr
	}
	d.mu.Lock()
	d.applied[sp.Step.ID] = true
	d.mu.Unlock()
	return &backends.StepResult{Problems: sc.problems, Notes: sc.notes, Requests: sc.requests,
		Reads: sc.reads, Writes: sc.writes, Queries: sc.queries}, nil
}

// applies returns the IDs of the steps whose Apply was called, sorted.
func (d *testDriver) applies() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, c := range d.calls {
		if len(c) > 6 && c[:6] == "apply " {
			out = append(out, c[6:])
		}
	}
	sort.Strings(out)
	return out
}

func (d *testDriver) engine(parallelism int) *Engine {
	return &Engine{DriverFor: func(*graph.Step) (backends.Driver, error) { return d, nil }, Parallelism: parallelism}
}

// planApply plans g with planRun and applies the plan with applyRun,
// failing the test on either's error.
func planApply(t *testing.T, e *Engine, g *graph.Graph, planRun, applyRun *backends.Run) *Report {
	t.Helper()
	obs, err := e.Plan(context.Background(), g, planRun)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(context.Background(), g, obs, applyRun)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// creates scripts each of ids to plan one create.
func creates(ids ...string) map[string]*script {
	scripts := map[string]*script{}
	for _, id := range ids {
		scripts[id] = &script{changes: []plan.Change{change(id, "x", plan.ActionCreate)}}
	}
	return scripts
}

// Step IDs of testSpec.
const (
	stepNet    = "network/test:///default/lan"
	stepVM     = "vm/test:///default/web"
	stepZoneA  = "dns/a.example."
	stepSecret = "secret/bao/dns/cf#token"
	stepZoneB  = "dns/b.example."
)

// testSpec has two independent branches: tenant a's network, the VM on
// it, and the zone the VM publishes into (a chain of three); tenant b's
// zone, whose Cloudflare token is read from the operator's vault first.
func testSpec() *model.Spec {
	zoneA := &model.Zone{Tenant: "a", Name: "a.example.", TTL: 300,
		Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:1", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}}
	ref := model.VaultRef{Vault: "bao", Path: "dns/cf", Key: "token"}
	zoneB := &model.Zone{Tenant: "b", Name: "b.example.", TTL: 300,
		Provider: model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Vault: &ref}}}}
	store := &model.Vault{Name: "bao", Addrs: []string{"http://127.0.0.1:1"}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	return &model.Spec{Vaults: map[string]*model.Vault{"bao": store}, Tenants: []*model.Tenant{
		{
			Name: "a", Domain: "a.example.",
			Networks: []*model.Network{{Tenant: "a", Name: "lan", Host: "test:///default", CIDR: "10.0.0.0/24"}},
			VMs: []*model.VM{{Tenant: "a", Name: "web", Host: "test:///default", NICs: []model.NIC{{Network: "lan"}},
				Publish: &model.Publish{Zone: "a.example.", Names: []string{"www.a.example."}, Address: "192.0.2.1"}}},
			Zones: []*model.Zone{zoneA},
		},
		{
			Name: "b", Domain: "b.example.",
			Zones: []*model.Zone{zoneB},
		},
	}}
}

// wideSpec has n independent zones.
func wideSpec(n int) *model.Spec {
	t := &model.Tenant{Name: "w", Domain: "w.example."}
	for i := range n {
		t.Zones = append(t.Zones, &model.Zone{Tenant: "w", Name: fmt.Sprintf("z%02d.example.", i),
			Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:1", APIKey: model.Credential{Env: "K"}}}})
	}
	return &model.Spec{Tenants: []*model.Tenant{t}}
}

func mustGraph(t *testing.T, spec *model.Spec) *graph.Graph {
	t.Helper()
	g, err := graph.Build(spec)
	if err != nil {
		t.Fatalf("graph.Build: %v", err)
	}
	return g
}

func change(step, name string, a plan.Action, gates ...plan.Gate) plan.Change {
	return plan.Change{Key: step + "/" + name, Action: a, Impact: plan.ImpactLive, Gates: gates,
		After: map[string]any{"values": []string{"192.0.2.1"}}}
}
