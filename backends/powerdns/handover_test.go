package powerdns

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// handoverGraph is one apply of both tenants as the compiler builds it
// for a name site.cue grants tenant b inside tenant a's zone: a's zone
// step (its spec gave the name up, Handed) and b's step of single
// names (Within a).
func handoverGraph(t *testing.T, srv *pdnstest.Server, zone string, aWants []*model.RRset, name *model.RRset) (*engine.Engine, *graph.Graph) {
	t.Helper()
	az := zoneStep(srv, "a", zone, aWants...).Zone
	az.Handed = map[string]string{name.Name: "b"}
	bz := zoneStep(srv, "b", zone, name).Zone
	bz.Within = "a"
	g, err := graph.Build(&model.Spec{Tenants: []*model.Tenant{{Name: "a", Zones: []*model.Zone{az}}, {Name: "b", Names: []*model.Zone{bz}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := testDriver()
	return &engine.Engine{DriverFor: func(*graph.Step) (backends.Driver, error) { return d, nil }}, g
}

// TestHandover_NoUnansweredQuery: tenant a's spec gives www up and
// tenant b's writes it with the same data, in one apply. The authority
// answers every query throughout, the apply writes the zone once (one
// PATCH: the marker, no delete, no create), needs no gate, and the
// marker names b after it; a second plan is converged.
func TestHandover_NoUnansweredQuery(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone, www, api = "hand.test.", "www.hand.test.", "api.hand.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: www, Type: "A", TTL: 300, Records: []string{"192.0.2.80"}, Comments: []pdnstest.Comment{marker("a")}},
		pdnstest.RRset{Name: api, Type: "A", TTL: 300, Records: []string{"192.0.2.2"}, Comments: []pdnstest.Comment{marker("a")}})
	e, g := handoverGraph(t, srv, zone, []*model.RRset{rr(api, "A", 300, "192.0.2.2")}, rr(www, "A", 300, "192.0.2.80"))
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(obs.Plan.Changes), []string{"adopt dns/hand.test./www.hand.test./A none"}; !equalStrings(got, want) {
		t.Fatalf("plan = %q, want %q", got, want)
	}
	srv.ResetRequests(zone)
	ask := pdnstest.StartAsking(t, srv.DNSAddr, www, 2*time.Millisecond, "192.0.2.80")
	start := time.Now()
	rep, err := e.Apply(context.Background(), g, obs, run) // no gate acknowledged, no --yes
	took := time.Since(start)
	asked, unanswered := ask.Finish()
	if err != nil || !rep.OK() {
		t.Fatalf("apply: %v %+v", err, rep)
	}
	if unanswered != 0 {
		t.Errorf("%d of %d queries for %s went unanswered during the handover, want 0", unanswered, asked, www)
	}
	t.Logf("handover: %d queries, %d unanswered, requests %+v, apply %v", asked, unanswered, srv.Requests(zone), took)
	if got := srv.Requests(zone); got.PATCH != 1 || got.Writes() != 1 {
		t.Errorf("zone %s got %+v, want exactly one PATCH", zone, got)
	}
	rs := srv.Get(t, zone).Find(www, "A")
	if rs == nil || len(rs.Comments) != 1 || rs.Comments[0].Content != Marker("b") || !equalStrings(rs.Records, []string{"192.0.2.80"}) {
		t.Fatalf("www after the handover = %+v, want 192.0.2.80 marked for tenant b", rs)
	}
	again, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Plan.Changes) != 0 {
		t.Errorf("second plan = %q, want converged", summary(again.Plan.Changes))
	}
}

// TestHandover_NewDataIsAnUpdate: b's spec brings new data for the
// name: an ordinary update (records and marker in one PATCH), answered
// throughout with the old address or the new one.
func TestHandover_NewDataIsAnUpdate(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone, www = "handnew.test.", "www.handnew.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: www, Type: "A", TTL: 300, Records: []string{"192.0.2.80"}, Comments: []pdnstest.Comment{marker("a")}})
	e, g := handoverGraph(t, srv, zone, nil, rr(www, "A", 60, "192.0.2.81"))
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(obs.Plan.Changes), []string{"update dns/handnew.test./www.handnew.test./A live"}; !equalStrings(got, want) {
		t.Fatalf("plan = %q, want %q", got, want)
	}
	srv.ResetRequests(zone)
	ask := pdnstest.StartAsking(t, srv.DNSAddr, www, 2*time.Millisecond, "192.0.2.80", "192.0.2.81")
	rep, err := e.Apply(context.Background(), g, obs, run)
	asked, unanswered := ask.Finish()
	if err != nil || !rep.OK() {
		t.Fatalf("apply: %v %+v", err, rep)
	}
	if unanswered != 0 {
		t.Errorf("%d of %d queries went unanswered, want 0", unanswered, asked)
	}
	if got := srv.Requests(zone); got.PATCH != 1 || got.Writes() != 1 {
		t.Errorf("zone %s got %+v, want exactly one PATCH", zone, got)
	}
	rs := srv.Get(t, zone).Find(www, "A")
	if rs == nil || len(rs.Comments) != 1 || rs.Comments[0].Content != Marker("b") || !equalStrings(rs.Records, []string{"192.0.2.81"}) || rs.TTL != 60 {
		t.Fatalf("www after the update = %+v, want 60 192.0.2.81 marked for tenant b", rs)
	}
}

// TestHandover_ThirdOwnerRefused: the name carries tenant c's marker,
// not a's: no handover; the apply stops at GATE-DNS-OVERWRITE and
// writes nothing.
func TestHandover_ThirdOwnerRefused(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone, www = "handthird.test.", "www.handthird.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: www, Type: "A", TTL: 300, Records: []string{"192.0.2.80"}, Comments: []pdnstest.Comment{marker("c")}})
	e, g := handoverGraph(t, srv, zone, nil, rr(www, "A", 300, "192.0.2.80"))
	run := newRun(srv)
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests(zone)
	_, err = e.Apply(context.Background(), g, obs, run)
	var gm *engine.GatesMissingError
	if !errors.As(err, &gm) || len(gm.Missing) != 1 || gm.Missing[0] != plan.GateDNSOverwrite {
		t.Fatalf("got %v, want GATE-DNS-OVERWRITE missing", err)
	}
	if got := srv.Requests(zone); got.Writes() != 0 {
		t.Errorf("zone %s got %+v, want no writes", zone, got)
	}
	if rs := srv.Get(t, zone).Find(www, "A"); rs == nil || rs.Comments[0].Content != Marker("c") {
		t.Errorf("www = %+v, want tenant c's marker kept", rs)
	}
}

// TestHandover_ZoneMissing: a step of single names writes into its
// zone and never creates it: with the zone not on the server its plan
// fails and says whose apply comes first.
func TestHandover_ZoneMissing(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "handmissing.test."
	step := zoneStep(srv, "b", zone, rr("www."+zone, "A", 300, "192.0.2.80"))
	step.ID, step.Zone.Within = graph.NamesStepID(zone, "b"), "a"
	_, err := testDriver().Plan(context.Background(), step, newRun(srv))
	if err == nil || !strings.Contains(err.Error(), "apply tenant a first") {
		t.Fatalf("plan = %v, want the zone missing, tenant a's apply first", err)
	}
	if srv.Exists(t, zone) {
		t.Error("the step of single names created the zone")
	}
}
