package journal

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

const vmStep, netStep = "vm/qemu:///system/web", "network/qemu:///system/lan"

// resEntry is an apply that grew web's memory and vcpus and changed
// lan's cidr, with the images the libvirt driver journals.
func resEntry() *Entry {
	return &Entry{Format: Format, ID: "20261207T180000.000Z-00000002", Tenant: "lab", Changes: []Change{
		{Key: vmStep, Step: vmStep, Phase: plan.PhaseVM, Action: plan.ActionUpdate, BeforeFields: map[string]any{"memory": "max 128 MiB"}},
		{Key: vmStep, Step: vmStep, Phase: plan.PhaseVM, Action: plan.ActionUpdate, BeforeFields: map[string]any{"nics": "x"}},
		{Key: netStep, Step: netStep, Phase: plan.PhaseNetwork, Action: plan.ActionUpdate, BeforeFields: map[string]any{"network": "x"}},
	}, Images: map[string]*backends.Image{
		vmStep: {Kind: "vm", Host: "qemu:///system", Name: "web",
			Before: map[string]string{"memory": "134217728", "vcpus": "1", "autostart": "false", "running": "false"},
			After:  map[string]string{"memory": "268435456", "vcpus": "2", "autostart": "false", "running": "false"}},
		netStep: {Kind: "network", Host: "qemu:///system", Name: "lan",
			Before: map[string]string{"mode": "nat", "cidr": "10.1.0.0/24", "autostart": "false"},
			After:  map[string]string{"mode": "nat", "cidr": "10.2.0.0/24", "autostart": "false"}},
	}}
}

func resGraph() (*graph.Graph, *model.VM, *model.Network) {
	vm := &model.VM{Tenant: "lab", Name: "web", Host: "qemu:///system", MemoryBytes: 268435456, VCPUs: 2}
	nw := &model.Network{Tenant: "lab", Name: "lan", Host: "qemu:///system", CIDR: "10.2.0.0/24"}
	t := &model.Tenant{Name: "lab", VMs: []*model.VM{vm}, Networks: []*model.Network{nw}}
	return &graph.Graph{Steps: []*graph.Step{
		{ID: netStep, Phase: plan.PhaseNetwork, Tenant: "lab", TenantSpec: t, Network: nw},
		{ID: vmStep, Phase: plan.PhaseVM, Tenant: "lab", TenantSpec: t, VM: vm},
	}}, vm, nw
}

// TestUndoResourcesRewrite: the undo's VM and network are the spec's
// with the fields the apply changed set back to the before-image, as
// copies; the fields it does not put back are said; a VM the apply
// created becomes its removal.
func TestUndoResourcesRewrite(t *testing.T) {
	u, err := NewUndo(resEntry(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(u.Targets(), " "); got != netStep+" "+vmStep {
		t.Errorf("Targets: %s", got)
	}
	if len(u.Skipped) != 1 || !strings.Contains(u.Skipped[0], vmStep+": nics changed by that apply is not undone") {
		t.Errorf("Skipped: %q", u.Skipped)
	}
	g, vm, nw := resGraph()
	if err := u.Rewrite(g); err != nil {
		t.Fatal(err)
	}
	if v := g.Steps[1].VM; v.MemoryBytes != 134217728 || v.VCPUs != 1 || v == vm {
		t.Errorf("VM after Rewrite: %+v", v)
	}
	if n := g.Steps[0].Network; n.CIDR != "10.1.0.0/24" || n == nw {
		t.Errorf("network after Rewrite: %+v", n)
	}
	if vm.MemoryBytes != 268435456 || nw.CIDR != "10.2.0.0/24" {
		t.Errorf("Rewrite changed the loaded model: %+v %+v", vm, nw)
	}

	e := resEntry()
	e.Images[vmStep].Before = nil
	u, err = NewUndo(e, false)
	if err != nil {
		t.Fatal(err)
	}
	g, _, _ = resGraph()
	if err := u.Rewrite(g); err != nil {
		t.Fatal(err)
	}
	s := g.Steps[1]
	if s.VM != nil || s.Undeclared == nil || s.Undeclared.Name != "web" || len(s.TenantSpec.VMs) != 0 || len(g.Steps[0].TenantSpec.VMs) != 1 {
		t.Errorf("the created VM's step after Rewrite: %+v", s)
	}
}

// TestUndoResourcesRefused: an apply that removed a VM or a network,
// or renamed a VM, cannot be undone, and says which and why.
func TestUndoResourcesRefused(t *testing.T) {
	tests := []struct {
		name string
		edit func(e *Entry)
		want string
	}{
		{"removed VM", func(e *Entry) {
			e.Changes = append(e.Changes, Change{Key: vmStep, Step: vmStep, Phase: plan.PhaseVM, Action: plan.ActionDelete})
		}, vmStep + ": the apply removed this VM and the volumes site made for it: their data is gone"},
		{"removed network", func(e *Entry) {
			e.Changes = append(e.Changes, Change{Key: netStep, Step: netStep, Phase: plan.PhaseNetwork, Action: plan.ActionDelete})
		}, netStep + ": the apply removed this network"},
		{"renamed VM", func(e *Entry) {
			e.Images[vmStep].Before["name"], e.Images[vmStep].After["name"] = "old", "web"
		}, vmStep + ": renamed from old to web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := resEntry()
			tt.edit(e)
			_, err := NewUndo(e, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was changed") {
				t.Errorf("NewUndo: %v\nwant it to say %q", err, tt.want)
			}
		})
	}
}

// imaged is a step detail carrying an image, as the libvirt driver's.
type imaged struct{ img *backends.Image }

func (d imaged) JournalImage() *backends.Image { return d.img }

// TestUndoResourcesCheck: the undo's plan is refused when a field it
// puts back is live neither as the apply left it nor as it found it,
// or when it would change a field the apply did not.
func TestUndoResourcesCheck(t *testing.T) {
	plannedVM := func(live, want map[string]string) map[string]*backends.StepPlan {
		sp := backends.WithDetail(&backends.StepPlan{}, backends.Imaged(imaged{&backends.Image{Kind: "vm", Before: live, After: want}}))
		return map[string]*backends.StepPlan{vmStep: sp}
	}
	before := map[string]string{"memory": "134217728", "vcpus": "1", "autostart": "false", "running": "false"}
	with := func(k, v string, m map[string]string) map[string]string {
		out := map[string]string{}
		for a, b := range m {
			out[a] = b
		}
		out[k] = v
		return out
	}
	after := resEntry().Images[vmStep].After
	tests := []struct {
		name  string
		steps map[string]*backends.StepPlan
		want  string
	}{
		{"as the apply left it", plannedVM(after, before), ""},
		{"memory already back", plannedVM(with("memory", "134217728", after), before), ""},
		{"vcpus changed by hand", plannedVM(with("vcpus", "4", after), before), vmStep + ": vcpus: the apply left 2, live is 4"},
		{"started by hand since", plannedVM(with("running", "true", after), before), vmStep + ": running true → false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := NewUndo(resEntry(), false)
			if err != nil {
				t.Fatal(err)
			}
			err = u.Check(&plan.Plan{}, tt.steps)
			if tt.want == "" {
				if err != nil {
					t.Errorf("Check: %v, want allowed", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check: %v\nwant it to say %q", err, tt.want)
			}
		})
	}
}

// TestUndoPrerequisitePending: a step the undo's VM needs (its network)
// that only shows what waits for its restart does not refuse the undo;
// one that would change its definition does.
func TestUndoPrerequisitePending(t *testing.T) {
	const other = "network/qemu:///system/other"
	fields := map[string]string{"mode": "nat", "cidr": "10.1.0.0/24", "autostart": "false"}
	planned := func(after map[string]string) map[string]*backends.StepPlan {
		return map[string]*backends.StepPlan{other: backends.WithDetail(&backends.StepPlan{},
			backends.Imaged(imaged{&backends.Image{Kind: "network", Before: fields, After: after}}))}
	}
	change := func(imp plan.Impact) *plan.Plan {
		return &plan.Plan{Changes: []plan.Change{{Key: other, Step: other, Phase: plan.PhaseNetwork, Action: plan.ActionUpdate, Impact: imp}}}
	}
	moved := map[string]string{"mode": "nat", "cidr": "10.3.0.0/24", "autostart": "false"}
	tests := []struct {
		name  string
		p     *plan.Plan
		steps map[string]*backends.StepPlan
		ok    bool
	}{
		{"pending only", change(plan.ImpactNextBoot), planned(fields), true},
		{"a definition to write", change(plan.ImpactNextBoot), planned(moved), false},
		{"a live change", change(plan.ImpactLive), planned(fields), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := NewUndo(resEntry(), false)
			if err != nil {
				t.Fatal(err)
			}
			err = u.Check(tt.p, tt.steps)
			if tt.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "  update "+other)) {
				t.Errorf("Check: %v, want allowed %v", err, tt.ok)
			}
		})
	}
}
