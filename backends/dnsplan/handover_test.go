package dnsplan_test

import (
	"slices"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestHandover plans the two steps one apply of both tenants makes for
// a name site.cue grants tenant b inside tenant a's zone: b's step of
// single names (Within a), and a's zone step (Handed). The same data
// under a's marker is an ungated Adopt (the marker rewritten in place),
// new data an ordinary update, a third tenant's marker the ordinary
// gate; a's step never deletes the name, whoever's marker it carries.
func TestHandover(t *testing.T) {
	const www, api = "www.example.test.", "api.example.test."
	wwwA := func(owner string, values ...string) live {
		return live{name: www, typ: "A", ttl: 300, values: values, owner: owner}
	}
	apiA := live{name: api, typ: "A", ttl: 300, values: []string{"192.0.2.2"}, owner: "a"}
	for _, p := range providers {
		for _, tc := range []struct {
			name    string
			live    []live
			b, a    []string // each step's changes, as summary prints them
			wantOps []dnsplan.Kind
		}{
			{name: "same data: the marker moves, nothing else",
				live: []live{wwwA("a", "192.0.2.80"), apiA},
				b:    []string{"adopt www.example.test./A none"}, wantOps: []dnsplan.Kind{dnsplan.Adopt}},
			{name: "new data: an ordinary update with the marker",
				live: []live{wwwA("a", "192.0.2.81"), apiA},
				b:    []string{"update www.example.test./A live"}, wantOps: []dnsplan.Kind{dnsplan.Overwrite}},
			{name: "a third tenant's marker is no handover",
				live: []live{wwwA("c", "192.0.2.80"), apiA},
				b:    []string{"adopt www.example.test./A overwrite GATE-DNS-OVERWRITE"}, wantOps: []dnsplan.Kind{dnsplan.Adopt}},
			{name: "handed over already: converged, and no stray for a",
				live: []live{wwwA("b", "192.0.2.80"), apiA}},
			{name: "unmarked data is foreign, as ever",
				live: []live{wwwA("", "192.0.2.80"), apiA},
				b:    []string{"adopt www.example.test./A none"}, wantOps: []dnsplan.Kind{dnsplan.Adopt}},
		} {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				h := p.hooks()
				h.Before = nil
				bz := &model.Zone{Tenant: "b", Name: zone, Within: "a", RRsets: []*model.RRset{want(www, "A", 300, "192.0.2.80")}}
				res := dnsplan.Plan(&graph.Step{ID: graph.NamesStepID(zone, "b"), Tenant: "b", Zone: bz}, observed(tc.live), runstate.Start(backends.NewRun()), h)
				if got := summary(res); !slices.Equal(got, tc.b) {
					t.Errorf("b's changes = %q, want %q", got, tc.b)
				}
				var kinds []dnsplan.Kind
				for _, op := range res.Ops {
					kinds = append(kinds, op.Kind)
				}
				if !slices.Equal(kinds, tc.wantOps) {
					t.Errorf("b's ops = %v, want %v", kinds, tc.wantOps)
				}
				if len(res.Notes) > 0 {
					t.Errorf("b's notes = %q, want none: a's other names are a's", res.Notes)
				}
				az := &model.Zone{Tenant: "a", Name: zone, Handed: map[string]string{www: "b"},
					RRsets: []*model.RRset{want(api, "A", 300, "192.0.2.2")}}
				ares := dnsplan.Plan(graph.ZoneStep(az), observed(tc.live), runstate.Start(backends.NewRun()), h)
				if got := summary(ares); len(got) > 0 {
					t.Errorf("a's changes = %q, want none: the name is b's", got)
				}
				if len(ares.Notes) > 0 != (tc.live[0].owner == "a") {
					t.Errorf("a's notes = %q; want one on the name handed away exactly while a's marker is on it", ares.Notes)
				}
			})
		}
	}
}

// TestHandoverWithoutGrant: without Handed the zone's step deletes what
// its tenant's spec dropped, and without Within another tenant's marker
// is taken only behind the gate (what the handover changes).
func TestHandoverWithoutGrant(t *testing.T) {
	const www = "www.example.test."
	l := []live{{name: www, typ: "A", ttl: 300, values: []string{"192.0.2.80"}, owner: "a"}}
	az := &model.Zone{Tenant: "a", Name: zone}
	if got := summary(dnsplan.Plan(graph.ZoneStep(az), observed(l), runstate.Start(backends.NewRun()), dnsplan.Hooks{})); !slices.Equal(got, []string{"delete www.example.test./A live GATE-DNS-DELETE-MANY"}) {
		t.Errorf("a's changes = %q", got)
	}
	bz := &model.Zone{Tenant: "b", Name: zone, RRsets: []*model.RRset{want(www, "A", 300, "192.0.2.80")}}
	if got := summary(dnsplan.Plan(graph.ZoneStep(bz), observed(l), runstate.Start(backends.NewRun()), dnsplan.Hooks{})); !slices.Equal(got, []string{"adopt www.example.test./A overwrite GATE-DNS-OVERWRITE"}) {
		t.Errorf("b's changes = %q", got)
	}
}
