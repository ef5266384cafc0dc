package cloudflare

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/graph"
)

// TestHandover on Cloudflare: tenant b's step of single names in
// tenant a's zone (Within a) takes a's record with the same data by
// rewriting its comment, in one batch and no gate; new data is an
// ordinary update; a third tenant's comment keeps GATE-DNS-OVERWRITE.
func TestHandover(t *testing.T) {
	const www = "www." + zoneName
	for _, tc := range []struct {
		name, owner, content, change, after string
	}{
		{"same data", "a", "203.0.113.10", "adopt www.sjc.example.net./A", "www.sjc.example.net A 203.0.113.10 managed by site tenant=b"},
		{"new data", "a", "192.0.2.99", "update www.sjc.example.net./A", "www.sjc.example.net A 203.0.113.10 managed by site tenant=b"},
		{"third owner", "c", "203.0.113.10", "adopt www.sjc.example.net./A GATE-DNS-OVERWRITE", "www.sjc.example.net A 203.0.113.10 managed by site tenant=b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.add(t, cftest.Record{Name: strings.TrimSuffix(www, "."), Type: "A", Content: tc.content, TTL: 300, Comment: Marker(tc.owner)})
			step := f.step(rr(www, "A", 300, "203.0.113.10"))
			step.ID, step.Tenant, step.Zone.Tenant, step.Zone.Within = graph.NamesStepID(zoneName, "b"), "b", "b", "a"
			sp := f.plan(t, step)
			if got := summary(sp.Changes); len(got) != 1 || got[0] != tc.change {
				t.Fatalf("changes = %q, want %q", got, tc.change)
			}
			f.fake.ResetCounts()
			f.apply(t, sp)
			if n, c := f.fake.Count(cftest.EpBatch), f.fake.Count(cftest.EpCreate)+f.fake.Count(cftest.EpDelete); n != 1 || c != 0 {
				t.Errorf("got %d batches and %d creates or deletes, want one batch", n, c)
			}
			// Rewritten in place: the same record, not a new one.
			if rs := f.fake.Records(f.zoneID); len(rs) != 1 || rs[0].ID != id {
				t.Errorf("records after = %+v, want the one record %s rewritten in place", rs, id)
			}
			f.checkAfter(t, step, []string{tc.after})
		})
	}
}
