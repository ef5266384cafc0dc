package dnsplan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestPlanNotesStrays: records another tenant's marker names, at a name
// and type this tenant's spec does not want, are no run's to change: a
// zone is one tenant's, so the tenant they name never reads it, and this
// one deletes only its own. The plan says so (a zone handed over, a
// tenant renamed), once per owner, rather than leave them served unseen.
// Foreign data without a marker is not noted: that is anyone's zone's
// normal state.
func TestPlanNotesStrays(t *testing.T) {
	const a, b, c, d = "a.example.test.", "b.example.test.", "c.example.test.", "d.example.test."
	const ours = "beta"
	tests := []struct {
		name   string
		live   []live
		want   []*model.RRset
		ignore []model.IgnoreRule
		notes  []string
	}{
		{name: "ours and unmarked foreign data are no strays",
			live: []live{
				{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours},
				{name: b, typ: "A", ttl: 300, values: []string{"192.0.2.2"}},
			},
			want: []*model.RRset{want(a, "A", 300, "192.0.2.1")}},
		{name: "another tenant's record the spec does not want",
			live:  []live{{name: a, typ: "TXT", ttl: 300, values: []string{`"x"`}, owner: "alpha"}},
			notes: []string{"1 RRset in zone example.test. is owned by site tenant alpha and the spec does not want it (a.example.test./TXT): " + dnsplan.StrayAdvice}},
		{name: "taken over at a wanted name is no stray, another type there is",
			live: []live{
				{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: "alpha"},
				{name: a, typ: "TXT", ttl: 300, values: []string{`"x"`}, owner: "alpha"},
			},
			want:  []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			notes: []string{"1 RRset in zone example.test. is owned by site tenant alpha and the spec does not want it (a.example.test./TXT): " + dnsplan.StrayAdvice}},
		{name: "one note per owner, three names at most",
			live: []live{
				{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: "alpha"},
				{name: b, typ: "A", ttl: 300, values: []string{"192.0.2.2"}, owner: "alpha"},
				{name: c, typ: "A", ttl: 300, values: []string{"192.0.2.3"}, owner: "alpha"},
				{name: d, typ: "A", ttl: 300, values: []string{"192.0.2.4"}, owner: "alpha"},
				{name: d, typ: "TXT", ttl: 300, values: []string{`"x"`}, owner: "gamma"},
			},
			notes: []string{
				"4 RRsets in zone example.test. are owned by site tenant alpha and the spec does not want them (a.example.test./A, b.example.test./A, c.example.test./A and 1 more): " + dnsplan.StrayAdvice,
				"1 RRset in zone example.test. is owned by site tenant gamma and the spec does not want it (d.example.test./TXT): " + dnsplan.StrayAdvice,
			}},
		{name: "what an ignore rule covers is left alone unsaid",
			live:   []live{{name: a, typ: "TXT", ttl: 300, values: []string{`"x"`}, owner: "alpha"}},
			ignore: []model.IgnoreRule{{Name: a}}},
	}
	for _, tt := range tests {
		for _, p := range providers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				h := p.hooks()
				h.Before = nil
				step := graph.ZoneStep(&model.Zone{Tenant: ours, Name: zone, RRsets: tt.want, Ignore: tt.ignore})
				res := dnsplan.Plan(step, observed(tt.live), runstate.Start(backends.NewRun()), h)
				if !slices.Equal(res.Notes, tt.notes) {
					t.Errorf("notes\n%s\nwant\n%s", strings.Join(res.Notes, "\n"), strings.Join(tt.notes, "\n"))
				}
			})
		}
	}
}

// TestStrayNotesAreBoundedByOwner: whoever holds the server's key can
// mark records with as many tenants' names as the zone holds records,
// one each. The notes are on every diff of the zone's tenant until the
// strays are gone: a few owners are named, the rest counted in one more
// note, never a note per marker.
func TestStrayNotesAreBoundedByOwner(t *testing.T) {
	var forged []live
	for i := range 500 {
		forged = append(forged, live{name: fmt.Sprintf("n%d.example.test.", i), typ: "TXT", ttl: 300, values: []string{`"x"`}, owner: fmt.Sprintf("t%03d", i)})
	}
	step := graph.ZoneStep(&model.Zone{Tenant: "beta", Name: zone})
	h := providers[0].hooks()
	h.Before = nil
	res := dnsplan.Plan(step, observed(forged), runstate.Start(backends.NewRun()), h)
	if len(res.Notes) > 4 {
		t.Fatalf("%d notes for 500 strays of 500 owners, want at most 4:\n%s", len(res.Notes), strings.Join(res.Notes[:6], "\n"))
	}
	last := res.Notes[len(res.Notes)-1]
	if want := "497 RRsets in zone example.test. are owned by 497 other site tenants (t003, t004, t005 and 494 more) and the spec does not want them: " + dnsplan.StrayAdvice; last != want {
		t.Errorf("last note\n%s\nwant\n%s", last, want)
	}
}
