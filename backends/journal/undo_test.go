package journal

import (
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func rr(ttl uint32, values ...string) *RRset { return &RRset{TTL: ttl, Values: values} }

func dnsChange(name, typ string, a plan.Action, before, after *RRset) Change {
	return Change{Key: "dns/z.test./" + name + "/" + typ, Step: "dns/z.test.", Phase: plan.PhaseDNS, Action: a,
		Zone: "z.test.", Name: name, Type: typ, Before: before, After: after}
}

// swap is an apply that swapped www's CNAME for an A, changed val and
// deleted old.
var swap = &Entry{Format: Format, ID: "20261207T180000.000Z-00000001", Tenant: "office1", Changes: []Change{
	dnsChange("www.z.test.", "A", plan.ActionCreate, nil, rr(300, "192.0.2.7")),
	dnsChange("www.z.test.", "CNAME", plan.ActionDelete, rr(300, "keep.z.test."), nil),
	dnsChange("val.z.test.", "A", plan.ActionUpdate, rr(300, "192.0.2.1"), rr(300, "192.0.2.100")),
	dnsChange("old.z.test.", "A", plan.ActionDelete, rr(600, "192.0.2.2"), nil),
}}

// TestUndoRewriteSetsBeforeImagesBack: the undo's wanted zone is the
// spec's with what the apply created dropped and what it changed or
// deleted wanted as it was; what it did not touch stays as the spec
// says, and the loaded model is not changed.
func TestUndoRewriteSetsBeforeImagesBack(t *testing.T) {
	spec := &model.Zone{Tenant: "office1", Name: "z.test.", TTL: 300, RRsets: []*model.RRset{
		{Name: "keep.z.test.", Type: "A", TTL: 300, Values: []string{"192.0.2.9"}},
		{Name: "val.z.test.", Type: "A", TTL: 300, Values: []string{"192.0.2.100"}},
		{Name: "www.z.test.", Type: "A", TTL: 300, Values: []string{"192.0.2.7"}},
	}}
	step := &graph.Step{ID: "dns/z.test.", Phase: plan.PhaseDNS, Tenant: "office1", Zone: spec}
	g := &graph.Graph{Steps: []*graph.Step{step}}
	u, err := NewUndo(swap, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Rewrite(g); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range step.Zone.RRsets {
		got = append(got, r.Name+" "+r.Type+" "+rr(r.TTL, r.Values...).String())
	}
	want := []string{
		`keep.z.test. A ttl 300 ["192.0.2.9"]`,
		`old.z.test. A ttl 600 ["192.0.2.2"]`,
		`val.z.test. A ttl 300 ["192.0.2.1"]`,
		`www.z.test. CNAME ttl 300 ["keep.z.test."]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("wanted after Rewrite:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(spec.RRsets) != 3 || spec.RRsets[1].Values[0] != "192.0.2.100" {
		t.Errorf("Rewrite changed the loaded model: %v", spec.RRsets)
	}
	step.Tenant = "mallory"
	if err := u.Rewrite(g); err == nil || !strings.Contains(err.Error(), "belongs to tenant mallory") {
		t.Errorf("Rewrite of another tenant's zone: %v", err)
	}
	if err := u.Rewrite(&graph.Graph{}); err == nil || !strings.Contains(err.Error(), "not in the scope") {
		t.Errorf("Rewrite without the zone: %v", err)
	}
}

// TestUndoCheck: the undo's plan is refused, naming each key, when what
// is live is not what the apply wrote (changed, recreated, removed), or
// when it changes a record set the apply did not touch.
func TestUndoCheck(t *testing.T) {
	change := func(name, typ string, a plan.Action, live *RRset) plan.Change {
		c := plan.Change{Key: "dns/z.test./" + name + "/" + typ, Step: "dns/z.test.", Phase: plan.PhaseDNS, Action: a}
		if live != nil {
			c.Before = map[string]any{"ttl": live.TTL, "values": live.Values}
		}
		return c
	}
	clean := []plan.Change{
		change("www.z.test.", "A", plan.ActionDelete, rr(300, "192.0.2.7")),
		change("www.z.test.", "CNAME", plan.ActionCreate, nil),
		change("val.z.test.", "A", plan.ActionUpdate, rr(300, "192.0.2.100")),
		change("old.z.test.", "A", plan.ActionCreate, nil),
	}
	tests := []struct {
		name    string
		changes []plan.Change
		want    []string // "" when allowed
	}{
		{"as the apply left it", clean, nil},
		{"already undone in part", clean[:2], nil},
		{"a value changed since", append(clean[:2:2], change("val.z.test.", "A", plan.ActionUpdate, rr(300, "192.0.2.200"))),
			[]string{"1 record set was changed by someone else", `val.z.test./A: the apply wrote ttl 300 ["192.0.2.100"], live is ttl 300 ["192.0.2.200"]`}},
		{"a TTL changed since", []plan.Change{change("val.z.test.", "A", plan.ActionUpdate, rr(60, "192.0.2.100"))},
			[]string{"val.z.test./A: the apply wrote ttl 300"}},
		{"a deleted name recreated", []plan.Change{change("old.z.test.", "A", plan.ActionUpdate, rr(600, "198.51.100.1"))},
			[]string{`old.z.test./A: the apply wrote (none), live is ttl 600 ["198.51.100.1"]`}},
		{"a created name removed", []plan.Change{change("www.z.test.", "CNAME", plan.ActionCreate, nil), change("www.z.test.", "A", plan.ActionDelete, nil)},
			[]string{`www.z.test./A: the apply wrote ttl 300 ["192.0.2.7"], live is (none)`}},
		{"beyond the entry", append(clean[:1:1], change("extra.z.test.", "A", plan.ActionCreate, nil)),
			[]string{"would also change 1 record set that journal entry", "  create dns/z.test./extra.z.test./A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := NewUndo(swap, false)
			if err != nil {
				t.Fatal(err)
			}
			err = u.Check(&plan.Plan{Changes: tt.changes}, nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Errorf("Check: %v, want allowed", err)
				}
				for _, c := range tt.changes {
					if !strings.Contains(c.Reason, "journal entry "+swap.ID) {
						t.Errorf("%s's reason is %q, want it to name the entry", c.Key, c.Reason)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("Check allowed it, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// TestUndoWithoutImage: an entry holding VM or network changes but no
// image of their fields (journalled by an older site) is refused,
// naming them, unless its DNS part alone is undone.
func TestUndoWithoutImage(t *testing.T) {
	e := *swap
	e.Changes = append(e.Changes[:1:1], Change{Key: "vm/qemu:///system/files", Step: "vm/qemu:///system/files",
		Phase: plan.PhaseVM, Action: plan.ActionUpdate, BeforeFields: map[string]any{"memory": "1GiB"}})
	if _, err := NewUndo(&e, false); err == nil || !strings.Contains(err.Error(), "without their fields' before-image") ||
		!strings.Contains(err.Error(), "vm/qemu:///system/files") || !strings.Contains(err.Error(), "--only dns") {
		t.Errorf("NewUndo: %v", err)
	}
	u, err := NewUndo(&e, true)
	if err != nil || !u.Partial || len(u.Skipped) != 1 || !strings.Contains(u.Skipped[0], "not undone (--only dns)") {
		t.Errorf("NewUndo --only dns: %v, %+v", err, u)
	}
}

// TestUndoLeavesTheZoneItself: an apply that created its zone journals
// that change too; the undo puts its record sets back and leaves the
// zone (it never deletes or unsigns one), saying so.
func TestUndoLeavesTheZoneItself(t *testing.T) {
	e := *swap
	e.Changes = append([]Change{{Key: "dns/z.test.", Step: "dns/z.test.", Phase: plan.PhaseDNS, Action: plan.ActionCreate}}, e.Changes...)
	u, err := NewUndo(&e, false)
	if err != nil {
		t.Fatal(err)
	}
	if u.Partial || len(u.Skipped) != 1 || !strings.Contains(u.Skipped[0], "dns/z.test.: a change of the zone itself (create)") {
		t.Errorf("NewUndo: partial %v, skipped %q", u.Partial, u.Skipped)
	}
}

// TestUndoSOA: an SOA change is put back as the zone's soa, every field
// but the serial, and a live SOA differing from what the apply wrote
// only in its serial (the server's) is not a change by someone else.
func TestUndoSOA(t *testing.T) {
	e := *swap
	e.Changes = []Change{dnsChange("z.test.", "SOA", plan.ActionUpdate,
		rr(3600, "ns1.z.test. hostmaster.z.test. 7 10800 3600 604800 3600"), rr(3600, "ns1.z.test. ops.z.test. 8 1234 3600 604800 60"))}
	u, err := NewUndo(&e, false)
	if err != nil {
		t.Fatal(err)
	}
	step := &graph.Step{ID: "dns/z.test.", Phase: plan.PhaseDNS, Tenant: "office1", Zone: &model.Zone{Tenant: "office1", Name: "z.test."}}
	if err := u.Rewrite(&graph.Graph{Steps: []*graph.Step{step}}); err != nil {
		t.Fatal(err)
	}
	s := step.Zone.SOA
	if s == nil || s.MName != "ns1.z.test." || s.Mbox != "hostmaster.z.test." || *s.Refresh != 10800 || *s.Minimum != 3600 || len(step.Zone.RRsets) != 0 {
		t.Errorf("zone after Rewrite: soa %+v, rrsets %v", s, step.Zone.RRsets)
	}
	live := func(v string) *plan.Plan {
		return &plan.Plan{Changes: []plan.Change{{Key: "dns/z.test./z.test./SOA", Step: "dns/z.test.", Phase: plan.PhaseDNS,
			Action: plan.ActionUpdate, Before: map[string]any{"ttl": 3600, "values": []string{v}}}}}
	}
	if err := u.Check(live("ns1.z.test. ops.z.test. 9 1234 3600 604800 60"), nil); err != nil {
		t.Errorf("Check of an SOA whose serial alone moved on: %v", err)
	}
	if err := u.Check(live("ns1.z.test. ops.z.test. 9 4321 3600 604800 60"), nil); err == nil || !strings.Contains(err.Error(), "dns/z.test./z.test./SOA: the apply wrote") {
		t.Errorf("Check of an SOA changed since: %v", err)
	}
}
