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

// TestIgnoreValueKeepsRecords (issue 28, item 4): an ignore rule with a
// value glob (DNSControl's IGNORE(label, type, target)) keeps the
// records it matches: written back beside the wanted ones, never
// deleted, and an RRset of them alone is left alone.
func TestIgnoreValueKeepsRecords(t *testing.T) {
	const ours = "office1"
	google, oldSPF, newSPF := `"google-site-verification=abc"`, `"v=spf1 -all"`, `"v=spf1 mx -all"`
	rule := []model.IgnoreRule{{Name: zone, Type: "TXT", Value: "google-site-verification=*"}}
	for _, tc := range []struct {
		name    string
		live    []string // the apex TXT, ours
		want    []*model.RRset
		changes []string
		written []string // the values of the one op, nil for none
	}{
		{"an update writes the kept record back", []string{google, oldSPF}, []*model.RRset{want(zone, "TXT", 300, newSPF)},
			[]string{"update example.test./TXT live"}, []string{google, newSPF}},
		{"converged with the kept record there", []string{google, newSPF}, []*model.RRset{want(zone, "TXT", 300, newSPF)}, nil, nil},
		{"no longer wanted: only what the rule does not keep goes", []string{google, oldSPF}, []*model.RRset{want("www."+zone, "A", 300, "192.0.2.1")},
			[]string{"create www.example.test./A live", "update example.test./TXT live"}, []string{google}},
		{"no longer wanted, all kept: left alone", []string{google}, []*model.RRset{want("www."+zone, "A", 300, "192.0.2.1")},
			[]string{"create www.example.test./A live"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := []live{{name: zone, typ: "TXT", ttl: 300, values: slices.Sorted(slices.Values(tc.live)), owner: ours}}
			step := graph.ZoneStep(&model.Zone{Tenant: ours, Name: zone, RRsets: tc.want, Ignore: rule})
			res := dnsplan.Plan(step, observed(live), runstate.Start(backends.NewRun()), providers[0].hooks())
			if got := summary(res); !slices.Equal(got, tc.changes) {
				t.Errorf("changes %q, want %q", got, tc.changes)
			}
			var written []string
			for _, op := range res.Ops {
				if op.Live != nil && op.Live.Type == "TXT" {
					written = op.Values
				}
			}
			if tc.written != nil && !slices.Equal(written, slices.Sorted(slices.Values(tc.written))) {
				t.Errorf("TXT written %q, want %q", written, tc.written)
			}
		})
	}
}
