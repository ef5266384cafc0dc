package powerdns

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func TestMain(m *testing.M) { os.Exit(pdnstest.Main(m)) }

const keyEnv = "PDNS_API_KEY"

// rr builds a wanted rrset.
func rr(name, typ string, ttl uint32, values ...string) *model.RRset {
	sort.Strings(values)
	return &model.RRset{Name: name, Type: typ, TTL: ttl, Values: values}
}

// zoneStep is the step converging zone for tenant on srv.
func zoneStep(srv *pdnstest.Server, tenant, zone string, rrsets ...*model.RRset) *graph.Step {
	z := &model.Zone{Tenant: tenant, Name: zone, TTL: 300, RRsets: rrsets,
		Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: srv.URL, Server: srv.ServerID, APIKey: model.Credential{Env: keyEnv}}}}
	return &graph.Step{ID: graph.ZoneStepID(zone), Phase: plan.PhaseDNS, Tenant: tenant, Zone: z}
}

// newRun is a run whose environment holds srv's key and DNS address.
func newRun(srv *pdnstest.Server) *backends.Run {
	run := runstate.Start(backends.NewRun())
	env := map[string]string{keyEnv: srv.APIKey, EnvDNSAddr: srv.DNSAddr}
	run.Getenv = func(k string) string { return env[k] }
	return run
}

func testDriver() *Driver { return &Driver{Backoff: time.Millisecond} }

func mustPlan(t *testing.T, d *Driver, step *graph.Step, run *backends.Run) *backends.StepPlan {
	t.Helper()
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return sp
}

func mustApply(t *testing.T, d *Driver, sp *backends.StepPlan, run *backends.Run) *backends.StepResult {
	t.Helper()
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("apply problems: %q", res.Problems)
	}
	return res
}

// summary lists changes as "action key impact gates", sorted.
func summary(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		var gates []string
		for _, g := range c.Gates {
			gates = append(gates, string(g))
		}
		out = append(out, strings.TrimSpace(string(c.Action)+" "+c.Key+" "+string(c.Impact)+" "+strings.Join(gates, ",")))
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func marker(tenant string) pdnstest.Comment {
	return pdnstest.Comment{Account: MarkerAccount, Content: Marker(tenant)}
}

// batchOf is the batch sp carries for Apply.
func batchOf(tb testing.TB, sp *backends.StepPlan) *batch {
	tb.Helper()
	b, err := backends.DetailOf[*batch](sp)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
