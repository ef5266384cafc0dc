package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestRRsetDirectIsTheJSONRead: reading a change's Before or After
// without the JSON round trip gives what the round trip gives, for the
// types the DNS backends use and for those a saved plan holds (which
// fall back to JSON); the plan's values are not sorted in place.
func TestRRsetDirectIsTheJSONRead(t *testing.T) {
	viaJSON := func(m map[string]any) *RRset {
		var r RRset
		b, _ := json.Marshal(m)
		_ = json.Unmarshal(b, &r)
		slices.Sort(r.Values)
		return &r
	}
	for _, m := range []map[string]any{
		{},
		{"ttl": uint32(300), "values": []string{"b.", "a."}},
		{"ttl": uint32(60), "values": []string(nil)},
		{"ttl": uint32(60), "values": []string{}},
		{"ttl": uint32(1), "values": []string{"x"}, "proxied": true, "owner": "t"},
		{"ttl": float64(300), "values": []any{"b.", "a."}}, // a saved plan's
		{"ttl": 300, "values": []string{"a."}},
		{"ttl": uint32(300), "values": []string{"a."}, "lease": "of VM x"},
	} {
		values, _ := m["values"].([]string)
		was := slices.Clone(values)
		if got, want := rrset(m), viaJSON(m); !reflect.DeepEqual(got, want) {
			t.Errorf("rrset(%v) = %+v, want %+v (what JSON reads)", m, got, want)
		}
		if !slices.Equal(values, was) {
			t.Errorf("rrset(%v) sorted the plan's values in place", m)
		}
	}
}

// BenchmarkJournalApply is the journalling of a 10,000-change apply to
// one tenant: its entry made from the plan and written to a directory.
func BenchmarkJournalApply(b *testing.B) {
	const zone = "bench.test."
	g := &graph.Graph{Steps: []*graph.Step{{ID: "dns/" + zone, Phase: plan.PhaseDNS, Tenant: "a", Zone: &model.Zone{Name: zone}}}}
	p := &plan.Plan{}
	for i := range 10000 {
		name := fmt.Sprintf("host-%05d.%s", i, zone)
		p.Changes = append(p.Changes, plan.Change{Key: "dns/" + zone + "/" + name + "/A", Step: "dns/" + zone, Tenant: "a",
			Phase: plan.PhaseDNS, Action: plan.ActionUpdate,
			Before: map[string]any{"ttl": uint32(300), "values": []string{fmt.Sprintf("192.0.2.%d", i%250)}},
			After:  map[string]any{"ttl": uint32(300), "values": []string{fmt.Sprintf("198.51.100.%d", i%250)}}})
	}
	rep := &engine.Report{Steps: []engine.StepReport{{Step: "dns/" + zone, Status: engine.StatusApplied}}}
	d, err := NewDir(b.TempDir(), "a")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := Run{ID: NewID(t0.Add(time.Duration(i) * time.Millisecond)), Time: t0, Who: "t@h"}
		for _, e := range Entries(r, g, p, nil, rep) {
			if err := d.Append(context.Background(), e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
