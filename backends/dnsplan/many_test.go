package dnsplan_test

import (
	"slices"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// changedTTL is the spec that wants ls, with the first n at another TTL:
// n updates of RRsets that are ours.
func (ls lives) changedTTL(n int) []*model.RRset {
	out := ls.wanted()
	for _, w := range out[:n] {
		w.TTL = 600
	}
	return out
}

// TestUpdateMany (issue 28, item 6): rewriting more than
// --update-threshold (30 % by default) of the RRsets site owns in a
// zone of 10 or more is gated like deletes, as octoDNS gates it, and
// the reason says by how much. Fewer, a smaller zone, a threshold of
// 100, and creates do not count.
func TestUpdateMany(t *testing.T) {
	const ours = "office1"
	for _, tc := range []struct {
		name   string
		live   lives
		want   []*model.RRset
		pct    int
		reason string // "" for no gate
	}{
		{"4 of 10 updated", owned(ours, 10), owned(ours, 10).changedTTL(4), 30,
			"4 of the 10 RRsets the spec has in this zone change at once: 40 %, over the 30 % --update-threshold allows"},
		{"3 of 10 updated is at the threshold", owned(ours, 10), owned(ours, 10).changedTTL(3), 30, ""},
		{"a smaller zone is not counted", owned(ours, 9), owned(ours, 9).changedTTL(9), 30, ""},
		{"--update-threshold 50", owned(ours, 10), owned(ours, 10).changedTTL(4), 50, ""},
		{"--update-threshold 0", owned(ours, 10), owned(ours, 10).changedTTL(1), 0,
			"1 of the 10 RRsets the spec has in this zone change at once: 10 %, over the 0 % --update-threshold allows"},
		{"--update-threshold 100", owned(ours, 12), owned(ours, 12).changedTTL(12), 100, ""},
		{"creates are no updates", owned(ours, 10), append(owned(ours, 10).wanted(), owned(ours, 20)[10:].wanted()...), 30, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(backends.NewRun())
			run.UpdateManyPercent = tc.pct
			step := graph.ZoneStep(&model.Zone{Tenant: ours, Name: zone, RRsets: tc.want})
			res := dnsplan.Plan(step, observed(tc.live), run, providers[0].hooks())
			for _, c := range res.Changes {
				gated := slices.Contains(c.Gates, plan.GateDNSUpdateMany)
				switch {
				case tc.reason == "" && gated:
					t.Errorf("%s: gated %v (%s), want no %s", c.Key, c.Gates, c.Reason, plan.GateDNSUpdateMany)
				case tc.reason != "" && c.Action == plan.ActionUpdate && (!gated || c.Reason != tc.reason):
					t.Errorf("%s: gates %v, reason %q; want %s and\n%q", c.Key, c.Gates, c.Reason, plan.GateDNSUpdateMany, tc.reason)
				}
			}
		})
	}
}
