//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestDefinitionEditedMeanwhileIsNotUndone: a VM's new definition is
// made from the one its plan read, keeping what site does not manage;
// when the domain was edited between the plan and the define, apply
// writes nothing over it and says to look again, rather than undo that
// edit unseen.
func TestDefinitionEditedMeanwhileIsNotUndone(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	vm := r.vm("web")
	g := r.graph([]*model.VM{vm}, nil)
	r.converge(g)

	vm.VCPUs = 2
	obs, run := r.diff(g)
	if len(obs.Plan.Changes) == 0 {
		t.Fatal("a vCPU change planned nothing")
	}
	dom, err := r.conn().LookupDomainByName("web")
	if err != nil {
		t.Fatal(err)
	}
	defer dom.Free()
	x, err := dom.GetXMLDesc(libvirt.DOMAIN_XML_INACTIVE)
	if err != nil {
		t.Fatal(err)
	}
	var def libvirtxml.Domain
	if err := def.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	def.Description = "edited by hand"
	x, _ = def.Marshal()
	if _, err := r.conn().DomainDefineXML(x); err != nil {
		t.Fatal(err)
	}

	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	var failed *engine.StepReport
	for i := range rep.Steps {
		if rep.Steps[i].Status == engine.StatusFailed {
			failed = &rep.Steps[i]
		}
	}
	if failed == nil || !strings.Contains(failed.Reason, "its definition changed since it was observed") || !strings.Contains(failed.Reason, "nothing was changed") {
		t.Fatalf("got %+v, want the VM step failed because its definition changed since it was observed", rep.Steps)
	}
	after := r.domain("web")
	if after.Inactive.Description != "edited by hand" || after.Inactive.VCPU.Value != 1 {
		t.Errorf("definition now has description %q and %d vCPUs, want the hand edit kept and nothing written", after.Inactive.Description, after.Inactive.VCPU.Value)
	}
}
