package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func TestApplyThenDiffIsConverged(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "converge.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone,
		rr("converge.test.", "MX", 300, "10 mx.example.org."),
		rr("www.converge.test.", "A", 300, "192.0.2.10", "192.0.2.11"),
		rr("v6.converge.test.", "AAAA", 600, "2001:db8::1"),
		rr("txt.converge.test.", "TXT", 300, `"v=spf1 -all"`),
		rr("alias.converge.test.", "CNAME", 300, "www.converge.test."),
		rr("_sip._tcp.converge.test.", "SRV", 300, "10 5 5060 sip.example.org."),
		rr("converge.test.", "CAA", 300, `0 issue "letsencrypt.org"`),
		rr("*.apps.converge.test.", "A", 300, "192.0.2.12"),
	)
	d, run := testDriver(), newRun(srv)

	sp := mustPlan(t, d, step, run)
	if len(sp.Changes) != 9 || sp.Changes[0].Key != "dns/converge.test." {
		t.Fatalf("got %q for a missing zone, want the zone and 8 rrsets created", summary(sp.Changes))
	}
	for _, c := range sp.Changes {
		if c.Action != plan.ActionCreate || c.Impact != plan.ImpactLive || len(c.Gates) != 0 {
			t.Errorf("got %s %s %s %v, want an ungated live create", c.Action, c.Key, c.Impact, c.Gates)
		}
	}
	srv.ResetRequests(zone)
	srv.ResetRequests("") // zone creates of tests that ran before on the shared server
	mustApply(t, d, sp, run)
	if got := srv.Requests(zone).Writes() + srv.Requests("").POST; got != 1 {
		t.Errorf("got %d writes creating the zone, want 1 (a POST carrying the rrsets)", got)
	}
	if got := srv.Get(t, zone).Find("www.converge.test.", "A"); got == nil || len(got.Comments) != 1 || got.Comments[0] != marker("office1") {
		t.Errorf("got %+v, want www A created with our marker", got)
	}
	z := srv.Get(t, zone)
	if z.Serial == 0 {
		t.Errorf("got serial 0, want a YYYYMMDDnn serial (SOA-EDIT-API DEFAULT)")
	}
	if got := srv.Query(t, "www.converge.test.", "A"); !equalStrings(got, []string{"300 192.0.2.10", "300 192.0.2.11"}) {
		t.Errorf("got %q, want both A records served", got)
	}

	// The engine observes the zone again in the same run: the POST's
	// answer is that observation, so it costs no request.
	srv.ResetRequests(zone)
	srv.ResetRequests("")
	if again := mustPlan(t, d, step, run); len(again.Changes) != 0 || again.Reads != 0 {
		t.Errorf("observing again after the create planned %q with %d reads, want no changes and no read", summary(again.Changes), again.Reads)
	}
	if got := srv.Requests(zone); got.GET != 0 || srv.Requests("").GET != 0 {
		t.Errorf("observing again after the create made %+v, want no request (the POST answered with the zone)", got)
	}

	// The next site run reads the zone itself.
	run = newRun(srv)
	srv.ResetRequests(zone)
	srv.ResetRequests("")
	sp = mustPlan(t, d, step, run)
	if len(sp.Changes) != 0 {
		t.Fatalf("got %q after apply, want no changes", summary(sp.Changes))
	}
	if got := srv.Requests(zone); got.GET != 1 || got.Writes() != 0 {
		t.Errorf("converged diff made %+v, want exactly one GET", got)
	}
	if got := srv.Requests("").GET; got > 1 {
		t.Errorf("converged diff listed zones %d times, want at most 1", got)
	}
	res := mustApply(t, d, sp, run)
	if got := srv.Requests(zone).Writes(); got != 0 || res.Requests != 0 {
		t.Errorf("second apply sent %d writes (%d requests), want none", got, res.Requests)
	}
	if got := srv.Get(t, zone).Serial; got != z.Serial {
		t.Errorf("serial moved from %d to %d on a converged apply", z.Serial, got)
	}
}

func TestIncident1_ExistingRecordsAreUpserted(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "upsert.test."
	srv.CreateZone(t, zone,
		// A partial earlier run wrote these (ours) ...
		pdnstest.RRset{Name: "keys.upsert.test.", Type: "A", TTL: 300, Records: []string{"203.0.113.10"}, Comments: []pdnstest.Comment{marker("sjc")}},
		pdnstest.RRset{Name: "old.upsert.test.", Type: "A", TTL: 300, Records: []string{"203.0.113.1"}, Comments: []pdnstest.Comment{marker("sjc")}},
		// ... and an operator created this one by hand, identical to the spec.
		pdnstest.RRset{Name: "forge.upsert.test.", Type: "A", TTL: 300, Records: []string{"203.0.113.20"},
			Comments: []pdnstest.Comment{{Account: "ops", Content: "made by hand during the cold start"}}},
	)
	step := zoneStep(srv, "sjc", zone,
		rr("keys.upsert.test.", "A", 300, "203.0.113.10"),
		rr("old.upsert.test.", "A", 300, "203.0.113.2"),
		rr("forge.upsert.test.", "A", 300, "203.0.113.20"),
		rr("new.upsert.test.", "A", 300, "203.0.113.30"),
	)
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, step, run)
	want := []string{
		"adopt dns/upsert.test./forge.upsert.test./A none",
		"create dns/upsert.test./new.upsert.test./A live",
		"update dns/upsert.test./old.upsert.test./A live",
	}
	if got := summary(sp.Changes); !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	srv.ResetRequests(zone)
	mustApply(t, d, sp, run)
	if got := srv.Requests(zone); got.PATCH != 1 || got.Writes() != 1 {
		t.Errorf("apply made %+v, want exactly one PATCH", got)
	}
	forge := srv.Get(t, zone).Find("forge.upsert.test.", "A")
	if forge == nil || len(forge.Comments) != 2 {
		t.Fatalf("got %+v, want the operator's comment kept beside our marker", forge)
	}
	if got := srv.Query(t, "forge.upsert.test.", "A"); !equalStrings(got, []string{"300 203.0.113.20"}) {
		t.Errorf("adopted record serves %q, want it unchanged", got)
	}
	if sp := mustPlan(t, d, step, run); len(sp.Changes) != 0 {
		t.Errorf("got %q on the re-run, want no changes", summary(sp.Changes))
	}
}

func TestIncident2_CNAMEOverForeignARequiresGate(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "gw.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "v4.gw.test.", Type: "A", TTL: 60, Records: []string{"192.0.2.4"}},
		pdnstest.RRset{Name: "v4.gw.test.", Type: "AAAA", TTL: 60, Records: []string{"2001:db8::4"}},
		pdnstest.RRset{Name: "v4.gw.test.", Type: "TXT", TTL: 60, Records: []string{`"controller=other"`}},
	)
	step := zoneStep(srv, "office1", zone, rr("v4.gw.test.", "CNAME", 300, "gw.test."))
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, step, run)
	want := []string{
		"create dns/gw.test./v4.gw.test./CNAME overwrite GATE-DNS-OVERWRITE",
		"delete dns/gw.test./v4.gw.test./A overwrite GATE-DNS-OVERWRITE",
		"delete dns/gw.test./v4.gw.test./AAAA overwrite GATE-DNS-OVERWRITE",
		"delete dns/gw.test./v4.gw.test./TXT overwrite GATE-DNS-OVERWRITE",
	}
	if got := summary(sp.Changes); !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	p := plan.New()
	p.Changes = sp.Changes
	if got := p.Missing(map[plan.Gate]bool{}); len(got) != 1 || got[0] != plan.GateDNSOverwrite {
		t.Errorf("got missing gates %v, want [GATE-DNS-OVERWRITE]", got)
	}
	for _, c := range sp.Changes {
		if !strings.Contains(c.Reason, "no owner marker") && c.Action == plan.ActionDelete {
			t.Errorf("reason %q does not name who owns the foreign data", c.Reason)
		}
	}

	// Acknowledged: one PATCH removes theirs and writes ours, no 422.
	srv.ResetRequests(zone)
	mustApply(t, d, sp, run)
	if got := srv.Requests(zone); got.PATCH != 1 || got.Writes() != 1 {
		t.Errorf("apply made %+v, want exactly one PATCH", got)
	}
	if got := srv.Query(t, "v4.gw.test.", "CNAME"); !equalStrings(got, []string{"300 gw.test."}) {
		t.Errorf("got %q, want the CNAME served", got)
	}
	if sp := mustPlan(t, d, step, run); len(sp.Changes) != 0 {
		t.Errorf("got %q on the re-run, want no changes", summary(sp.Changes))
	}
}

func TestIncident2_FailedObservationPlansNoDeletes(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "flap.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "a.flap.test.", Type: "CNAME", TTL: 300, Records: []string{"flap.test."}, Comments: []pdnstest.Comment{marker("office1")}},
	)
	// The spec no longer wants a.flap.test.: with a good observation
	// that is a delete; without one it must be nothing at all.
	step := zoneStep(srv, "office1", zone)
	tests := []struct {
		name   string
		status int
		body   string
		class  backends.Class
		gets   int
	}{
		{"server error is retried then given up", 503, `{"error":"Service Unavailable"}`, backends.ClassTransient, 3},
		{"refused key is not retried", 401, `Unauthorized`, backends.ClassAuth, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.FailWhen(t, func(r *http.Request) (int, string, bool) { return tc.status, tc.body, r.Method == "GET" })
			srv.ResetRequests(zone)
			sp, err := testDriver().Plan(context.Background(), step, newRun(srv))
			if err == nil {
				t.Fatalf("got a plan with %q, want an error", summary(sp.Changes))
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.Class != tc.class {
				t.Fatalf("got %v, want a %s error", err, tc.class)
			}
			wants := []string{"observe zone flap.test.", "nothing is planned", "deletes least of all"}
			if tc.class == backends.ClassAuth {
				wants = append(wants, "with the API key from env "+keyEnv)
			}
			for _, want := range wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if got := srv.Requests(zone); got.GET != tc.gets || got.Writes() != 0 {
				t.Errorf("got %+v, want %d GETs and no writes", got, tc.gets)
			}
		})
	}
	// Observed fully, the same spec plans the delete (of all of ours,
	// so behind its gate): the test above failed for the right reason.
	sp := mustPlan(t, testDriver(), step, newRun(srv))
	if got, want := summary(sp.Changes), []string{"delete dns/flap.test./a.flap.test./CNAME live GATE-DNS-DELETE-MANY"}; !equalStrings(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestForeignRecordsSurvive(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "survive.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "survive.test.", Type: "NS", TTL: 3600, Records: []string{"ns1.example.org."}},
		pdnstest.RRset{Name: "theirs.survive.test.", Type: "A", TTL: 300, Records: []string{"198.51.100.1"}},
		pdnstest.RRset{Name: "other.survive.test.", Type: "A", TTL: 300, Records: []string{"198.51.100.2"}, Comments: []pdnstest.Comment{marker("branch2")}},
		pdnstest.RRset{Name: "mine.survive.test.", Type: "A", TTL: 300, Records: []string{"198.51.100.3"}, Comments: []pdnstest.Comment{marker("office1")}},
		pdnstest.RRset{Name: "mine.survive.test.", Type: "TXT", TTL: 300, Records: []string{`"x"`}, Comments: []pdnstest.Comment{marker("office1")}},
	)
	before := srv.Get(t, zone)
	step := zoneStep(srv, "office1", zone, rr("mine.survive.test.", "A", 300, "198.51.100.3"))
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, step, run)
	if got, want := summary(sp.Changes), []string{"delete dns/survive.test./mine.survive.test./TXT live"}; !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	mustApply(t, d, sp, run)
	after := srv.Get(t, zone)
	for _, k := range [][2]string{{"survive.test.", "SOA"}, {"survive.test.", "NS"}, {"theirs.survive.test.", "A"}, {"other.survive.test.", "A"}} {
		if after.Find(k[0], k[1]) == nil {
			t.Errorf("%s %s is gone, want it untouched", k[0], k[1])
		}
	}
	if after.Find("mine.survive.test.", "TXT") != nil {
		t.Errorf("our unwanted TXT survived")
	}
	if len(after.RRsets) != len(before.RRsets)-1 {
		t.Errorf("got %d rrsets, want %d", len(after.RRsets), len(before.RRsets)-1)
	}
}

func TestDeleteManyNeedsGate(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "many.test."
	var live []pdnstest.RRset
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		live = append(live, pdnstest.RRset{Name: n + ".many.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("office1")}})
	}
	srv.CreateZone(t, zone, live...)
	tests := []struct {
		keep  int
		gated bool
	}{
		{keep: 7, gated: false}, // 3 of 10 deleted: 30 %, not more
		{keep: 6, gated: true},  // 4 of 10: past 30 %
	}
	for _, tc := range tests {
		var want []*model.RRset
		for _, l := range live[:tc.keep] {
			want = append(want, rr(l.Name, "A", 300, "192.0.2.1"))
		}
		sp := mustPlan(t, testDriver(), zoneStep(srv, "office1", zone, want...), newRun(srv))
		for _, c := range sp.Changes {
			gated := len(c.Gates) == 1 && c.Gates[0] == plan.GateDNSDeleteMany
			if c.Action != plan.ActionDelete || gated != tc.gated {
				t.Errorf("keep %d: got %s %s gates %v, want a delete gated=%v", tc.keep, c.Action, c.Key, c.Gates, tc.gated)
			}
		}
		if len(sp.Changes) != 10-tc.keep {
			t.Errorf("keep %d: got %d changes, want %d", tc.keep, len(sp.Changes), 10-tc.keep)
		}
	}
}

func TestFingerprintMovesWithTheZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "stale.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www.stale.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
	step := zoneStep(srv, "office1", zone, rr("api.stale.test.", "A", 300, "192.0.2.2"))
	d, run := testDriver(), newRun(srv)
	saved := mustPlan(t, d, step, run).Fingerprint
	if again := mustPlan(t, d, step, run).Fingerprint; again != saved {
		t.Fatalf("fingerprint moved without a change: %s then %s", saved, again)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: "www.stale.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}})
	if fresh := mustPlan(t, d, step, run).Fingerprint; fresh == saved {
		t.Errorf("fingerprint %s did not change after another writer changed the zone", fresh)
	}
}

func TestEmptyZoneIsCreated(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "empty.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	d, run := testDriver(), newRun(srv)
	step := zoneStep(srv, "office1", zone)
	sp := mustPlan(t, d, step, run)
	if got, want := summary(sp.Changes), []string{"create dns/empty.test. live"}; !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	mustApply(t, d, sp, run)
	if !srv.Exists(t, zone) {
		t.Fatal("zone not created")
	}
	if sp := mustPlan(t, d, step, run); len(sp.Changes) != 0 {
		t.Errorf("got %q, want no changes", summary(sp.Changes))
	}
}

func TestSecondaryZoneIsRefused(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "secondary.test."
	body := []byte(`{"name":"` + zone + `","kind":"Slave","masters":["192.0.2.53"]}`)
	if status, out, err := srv.Do(context.Background(), "POST", "/zones", body); err != nil || status != 201 {
		t.Fatalf("create secondary: %d %v %s", status, err, out)
	}
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	srv.ResetRequests(zone)
	_, err := testDriver().Plan(context.Background(), zoneStep(srv, "office1", zone, rr("www.secondary.test.", "A", 300, "192.0.2.1")), newRun(srv))
	if err == nil || !strings.Contains(err.Error(), "secondary") {
		t.Fatalf("got %v, want a refusal naming the secondary zone", err)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("got %d writes, want none", got)
	}
}

// TestNotFoundIsAZoneOnlyWhenTheServerSaysSo: a wrong server id answers
// 404 like a missing zone does; only a missing zone may be planned as a
// create. (go-powerdns v3.17.0 drops a path in the base URL, so a wrong
// path prefix cannot be tested through it.)
func TestNotFoundIsAZoneOnlyWhenTheServerSaysSo(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "nothere.test."
	tests := []struct {
		name   string
		mutate func(*model.PowerDNS)
		want   string // error substring; "" means a planned create
	}{
		{"missing zone", func(*model.PowerDNS) {}, ""},
		{"wrong server id", func(p *model.PowerDNS) { p.Server = "no-such-server" }, `has no server "no-such-server"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step := zoneStep(srv, "office1", zone, rr("www.nothere.test.", "A", 300, "192.0.2.1"))
			tt.mutate(step.Zone.Provider.PowerDNS)
			sp, err := testDriver().Plan(context.Background(), step, newRun(srv))
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("got %v, want an error containing %q", err, tt.want)
				}
				// The operator's file names the server: check it there.
				if k := hint.KindOf(err); k != hint.CheckOperatorFile {
					t.Errorf("hint %v, want %v", k, hint.CheckOperatorFile)
				}
				// A read changes nothing: the advice for a write the
				// live data refused would send the user the wrong way.
				if strings.Contains(err.Error(), "this change") {
					t.Errorf("got %v, which speaks of a change", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(sp.Changes); len(got) == 0 || got[0] != "create dns/nothere.test. live" {
				t.Errorf("got %q, want the zone created first", got)
			}
		})
	}
}

// TestAbsentZonesShareOneList: zones that answer 404 in one run are
// confirmed absent by one zone list of their server, planned at once as
// the engine does, not one list each (200 new zones made 200 lists of
// a growing server); a new run lists again.
func TestAbsentZonesShareOneList(t *testing.T) {
	srv := pdnstest.Shared(t)
	d := testDriver()
	var steps []*graph.Step
	for i := range 8 {
		z := fmt.Sprintf("absent%d.share.test.", i)
		steps = append(steps, zoneStep(srv, "office1", z, rr("www."+z, "A", 300, "192.0.2.1")))
	}
	for round := range 2 {
		run := newRun(srv)
		srv.ResetRequests("")
		var wg sync.WaitGroup
		for _, step := range steps {
			wg.Go(func() {
				sp, err := d.Plan(context.Background(), step, run)
				if err != nil {
					t.Errorf("%s: %v", step.Zone.Name, err)
					return
				}
				if len(sp.Changes) == 0 || sp.Changes[0].Key != graph.ZoneStepID(step.Zone.Name) {
					t.Errorf("%s: got %q, want the zone created", step.Zone.Name, summary(sp.Changes))
				}
			})
		}
		wg.Wait()
		if got := srv.Requests("").GET; got != 1 {
			t.Errorf("run %d: %d zone lists for %d absent zones, want 1", round+1, got, len(steps))
		}
	}
}
