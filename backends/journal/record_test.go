package journal

import (
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestJournalEntriesFromApply: an apply's entries hold, per tenant, the
// changes of the steps it applied (in whole or part) with their
// before-images, DNS record sets named by zone, name and type (a name
// may hold a "/", as RFC 2317 zones' do); refused changes, failed steps
// and steps with nothing applied are not in them.
func TestJournalEntriesFromApply(t *testing.T) {
	const rev = "2.0.192.in-addr.arpa."
	g := &graph.Graph{Steps: []*graph.Step{
		{ID: "dns/" + rev, Phase: plan.PhaseDNS, Tenant: "a", Zone: &model.Zone{Name: rev}},
		{ID: "dns/b.test.", Phase: plan.PhaseDNS, Tenant: "b", Zone: &model.Zone{Name: "b.test."}},
		{ID: "vm/qemu:///system/files", Phase: plan.PhaseVM, Tenant: "a"},
		{ID: "dns/c.test.", Phase: plan.PhaseDNS, Tenant: "c", Zone: &model.Zone{Name: "c.test."}},
	}}
	p := &plan.Plan{Changes: []plan.Change{
		{Key: "dns/" + rev + "/1.0/25." + rev + "/PTR", Step: "dns/" + rev, Tenant: "a", Phase: plan.PhaseDNS, Action: plan.ActionUpdate,
			Before: map[string]any{"ttl": uint32(300), "values": []string{"b.example."}}, After: map[string]any{"ttl": uint32(60), "values": []string{"a.example."}}},
		{Key: "vm/qemu:///system/files/memory", Step: "vm/qemu:///system/files", Tenant: "a", Phase: plan.PhaseVM, Action: plan.ActionUpdate,
			Before: map[string]any{"memory": "1GiB"}, After: map[string]any{"memory": "2GiB"}},
		{Key: "vm/qemu:///system/files/net", Step: "vm/qemu:///system/files", Tenant: "a", Phase: plan.PhaseVM, Action: plan.ActionUpdate, Impact: plan.ImpactRefused},
		{Key: "dns/b.test./x.b.test./A", Step: "dns/b.test.", Tenant: "b", Phase: plan.PhaseDNS, Action: plan.ActionCreate},
		{Key: "dns/c.test./x.c.test./A", Step: "dns/c.test.", Tenant: "c", Phase: plan.PhaseDNS, Action: plan.ActionCreate},
	}}
	rep := &engine.Report{Steps: []engine.StepReport{
		{Step: "dns/" + rev, Status: engine.StatusApplied},
		{Step: "vm/qemu:///system/files", Status: engine.StatusPartial},
		{Step: "dns/b.test.", Status: engine.StatusFailed},
		{Step: "dns/c.test.", Status: engine.StatusSkipped},
	}}
	r := Run{ID: NewID(t0), Time: t0, Who: "t@h"}
	img := &backends.Image{Kind: "vm", Host: "qemu:///system", Name: "files", Before: map[string]string{"memory": "1073741824"}, After: map[string]string{"memory": "2147483648"}}
	steps := map[string]*backends.StepPlan{"vm/qemu:///system/files": backends.WithDetail(&backends.StepPlan{}, backends.Imaged(imaged{img}))}
	es := Entries(r, g, p, steps, rep)
	if len(es) != 1 || es[0].Tenant != "a" || es[0].ID != r.ID || !es[0].Time.Equal(t0.Truncate(time.Millisecond)) {
		t.Fatalf("Entries: %+v, want one of tenant a", es)
	}
	cs := es[0].Changes
	if len(cs) != 2 {
		t.Fatalf("%d changes, want the PTR and the memory (the refused one left out)", len(cs))
	}
	if c := cs[0]; c.Zone != rev || c.Name != "1.0/25."+rev || c.Type != "PTR" || !c.Before.Same(rr(300, "b.example.")) || !c.After.Same(rr(60, "a.example.")) {
		t.Errorf("the PTR change: %+v", c)
	}
	if c := cs[1]; c.Zone != "" || c.BeforeFields["memory"] != "1GiB" || c.AfterFields["memory"] != "2GiB" {
		t.Errorf("the VM change: %+v", c)
	}
	if len(es[0].Images) != 1 || es[0].Images["vm/qemu:///system/files"] != img {
		t.Errorf("the entry's images: %+v, want the VM step's", es[0].Images)
	}
}

// TestEntryImagesChecked: an entry whose image a journal store gives
// back is read only when it is the image site writes of the resource
// of its step; an entry without images (an older site's) still reads.
func TestEntryImagesChecked(t *testing.T) {
	good := func() *backends.Image {
		return &backends.Image{Kind: "vm", Host: "qemu:///system", Name: "files", Before: map[string]string{"memory": "1"}, After: map[string]string{"memory": "2"}}
	}
	tests := []struct {
		name string
		edit func(step *string, img *backends.Image)
		want string // "" when read
	}{
		{"as written", func(*string, *backends.Image) {}, ""},
		{"another resource's", func(step *string, _ *backends.Image) { *step = "vm/qemu:///system/other" }, "names another resource"},
		{"an unknown kind", func(_ *string, img *backends.Image) { img.Kind = "pool" }, "of a kind site never journals"},
		{"an unknown field", func(_ *string, img *backends.Image) { img.Before["cmdline"] = "x" }, "a field site never journals"},
		{"a value of two lines", func(_ *string, img *backends.Image) { img.After["memory"] = "1\n2" }, "no line of text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step, img := "vm/qemu:///system/files", good()
			tt.edit(&step, img)
			e := Entry{Format: Format, ID: "20261207T180000.000Z-00000003", Tenant: "a", Images: map[string]*backends.Image{step: img}}
			err := e.check("a")
			if tt.want == "" {
				if err != nil {
					t.Errorf("check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("check: %v, want %q", err, tt.want)
			}
		})
	}
	old := Entry{Format: Format, ID: "20261207T180000.000Z-00000003", Tenant: "a"}
	if err := old.check("a"); err != nil {
		t.Errorf("an entry without images: %v", err)
	}
}

// TestZoneOnTwoProviders_JournalSaysTheProvider: a zone on several
// providers has a step per provider, keyed alike; each change journals
// the provider it was written to. A zone on one provider says none.
func TestZoneOnTwoProviders_JournalSaysTheProvider(t *testing.T) {
	a, b := model.Provider{Name: "pdns"}, model.Provider{Name: "pdns2"}
	z := &model.Zone{Name: "m.test.", Providers: []model.Provider{a, b}}
	g := &graph.Graph{Steps: []*graph.Step{
		{ID: "dns/m.test.@pdns", Phase: plan.PhaseDNS, Tenant: "m", Zone: z.OnProvider(a)},
		{ID: "dns/m.test.@pdns2", Phase: plan.PhaseDNS, Tenant: "m", Zone: z.OnProvider(b)},
		{ID: "dns/one.test.", Phase: plan.PhaseDNS, Tenant: "m", Zone: &model.Zone{Name: "one.test.", Provider: a}},
	}}
	p := &plan.Plan{}
	for _, s := range g.Steps {
		p.Changes = append(p.Changes, plan.Change{Key: "dns/" + s.Zone.Name + "/x." + s.Zone.Name + "/A", Step: s.ID, Tenant: "m",
			Phase: plan.PhaseDNS, Action: plan.ActionCreate, After: map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.1"}}})
	}
	rep := &engine.Report{}
	for _, s := range g.Steps {
		rep.Steps = append(rep.Steps, engine.StepReport{Step: s.ID, Status: engine.StatusApplied})
	}
	es := Entries(Run{ID: NewID(t0), Time: t0, Who: "t@h"}, g, p, nil, rep)
	if len(es) != 1 || len(es[0].Changes) != 3 {
		t.Fatalf("Entries: %+v, want one of 3 changes", es)
	}
	for i, want := range []string{"pdns", "pdns2", ""} {
		if c := es[0].Changes[i]; c.Provider != want || c.Type != "A" {
			t.Errorf("change %d (%s): provider %q, want %q", i, c.Step, c.Provider, want)
		}
	}
	if _, err := NewUndo(&es[0], false); err == nil || !strings.Contains(err.Error(), "undoing a zone on several providers is not built") ||
		!strings.Contains(err.Error(), "pdns") {
		t.Errorf("NewUndo of a zone on two providers: %v; want it refused, naming the provider", err)
	}
}
