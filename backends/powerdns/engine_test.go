package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// engineFor runs the real executor over the given zone steps with this
// driver, as site diff and site apply do.
func engineFor(t *testing.T, d *Driver, steps ...*graph.Step) (*engine.Engine, *graph.Graph) {
	t.Helper()
	spec := &model.Spec{}
	for _, s := range steps {
		spec.Tenants = append(spec.Tenants, &model.Tenant{Name: s.Tenant, Zones: []*model.Zone{s.Zone}})
	}
	g, err := graph.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	e := &engine.Engine{DriverFor: func(*graph.Step) (backends.Driver, error) { return d, nil }}
	return e, g
}

func TestGateBlocksBeforeAnyChange(t *testing.T) {
	srv := pdnstest.Shared(t)
	const gated, free = "gated.test.", "free.test."
	srv.CreateZone(t, gated, pdnstest.RRset{Name: "v6.gated.test.", Type: "AAAA", TTL: 60, Records: []string{"2001:db8::6"}})
	srv.CreateZone(t, free)
	d := testDriver()
	e, g := engineFor(t, d,
		zoneStep(srv, "office1", gated, rr("v6.gated.test.", "CNAME", 300, "gated.test.")),
		zoneStep(srv, "branch2", free, rr("www.free.test.", "A", 300, "192.0.2.80")))
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests(gated)
	srv.ResetRequests(free)
	_, err = e.Apply(context.Background(), g, obs, run)
	var gm *engine.GatesMissingError
	if !errors.As(err, &gm) || len(gm.Missing) != 1 || gm.Missing[0] != plan.GateDNSOverwrite {
		t.Fatalf("got %v, want GATE-DNS-OVERWRITE missing", err)
	}
	// The ungated zone was not touched either: gates are checked for the
	// whole scope before any change.
	for _, z := range []string{gated, free} {
		if got := srv.Requests(z); got.Writes() != 0 {
			t.Errorf("zone %s got %+v with a gate missing, want no writes", z, got)
		}
	}
	if got := srv.Query(t, "v6.gated.test.", "AAAA"); !equalStrings(got, []string{"60 2001:db8::6"}) {
		t.Errorf("got %q, want the foreign AAAA still served", got)
	}

	run.Acked[plan.GateDNSOverwrite] = true
	rep, err := e.Apply(context.Background(), g, obs, run)
	if err != nil || !rep.OK() {
		t.Fatalf("acked apply: %v %+v", err, rep)
	}
	if got := srv.Query(t, "v6.gated.test.", "CNAME"); !equalStrings(got, []string{"300 gated.test."}) {
		t.Errorf("got %q, want the CNAME served after the ack", got)
	}
}

func TestIncident3_StalePlanRefused(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "saved.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www.saved.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("office1")}})
	d := testDriver()
	e, g := engineFor(t, d, zoneStep(srv, "office1", zone, rr("www.saved.test.", "A", 300, "192.0.2.2")))
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	// The saved plan goes through its JSON form, as site diff --out does.
	raw, err := json.Marshal(obs.Plan)
	if err != nil {
		t.Fatal(err)
	}
	var saved plan.Plan
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	fresh, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.CheckFresh(&saved, fresh.Plan); err != nil {
		t.Fatalf("nothing changed, got %v", err)
	}

	// Someone else writes the zone between diff and apply.
	srv.Replace(t, zone, pdnstest.RRset{Name: "other.saved.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}})
	fresh, err = e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	err = plan.CheckFresh(&saved, fresh.Plan)
	var stale *plan.StalePlanError
	// Another writer's record: the zone changed, the planned changes
	// did not, and the error says so.
	if !errors.As(err, &stale) || len(stale.Steps) != 1 || stale.Steps[0].Step != "dns/saved.test." || stale.Steps[0].Reason != plan.StaleLiveChanged ||
		!strings.Contains(stale.Steps[0].Detail, "planned changes are the same") {
		t.Fatalf("got %v, want the plan refused as stale for dns/saved.test.", err)
	}
}

func TestAPIKeyNeverPrinted(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "secret.test."
	srv.CreateZone(t, zone)
	step := zoneStep(srv, "office1", zone, rr("www.secret.test.", "A", 300, "192.0.2.3"))
	tests := []struct {
		name, key string
	}{
		{"accepted key", srv.APIKey},
		{"refused key", "wrong-key-0123456789"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := newRun(srv)
			run.Getenv = func(k string) string {
				switch k {
				case keyEnv:
					return tc.key
				case EnvDNSAddr:
					return srv.DNSAddr
				}
				return ""
			}
			d := testDriver()
			e, g := engineFor(t, d, step)
			obs, err := e.Plan(context.Background(), g, run)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			raw, _ := json.Marshal(obs.Plan)
			text.Write(raw)
			if rep, err := e.Apply(context.Background(), g, obs, run); err != nil {
				text.WriteString(err.Error())
			} else {
				raw, _ := json.Marshal(rep)
				text.Write(raw)
			}
			if tc.key != srv.APIKey && !strings.Contains(text.String(), "API key was refused") {
				t.Errorf("the refused key is not reported: %s", text.String())
			}
			if strings.Contains(text.String(), tc.key) {
				t.Errorf("the API key appears in what site shows: %s", text.String())
			}
		})
	}
}
