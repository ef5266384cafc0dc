//go:build cgo && libvirt_dlopen

package vmstep

import (
	"strconv"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// This file says, for site's apply journal, what a VM step
// found and leaves of the fields a tenant's spec sets (backends.Image),
// so that site undo can set the spec back to what was there before.
// Both sides are read the same way: Before from the observed
// definition, After from the spec as the planner writes it into one.

// JournalImage is the VM step's image (backends.Imaged).
func (d *vmDetail) JournalImage() *backends.Image {
	if d == nil {
		return nil
	}
	return d.image
}

// journalImage is the image of the planned VM: its persistent definition
// (the live one of a transient domain), autostart and state as observed,
// and as the spec sets them. A domain the plan renames says so in the
// field name, which no undo sets back.
func (p *vmPlanner) journalImage() *backends.Image {
	vm := p.vm
	img := &backends.Image{Kind: "vm", Host: vm.Host, Name: vm.Name, After: vmWanted(vm)}
	if o := p.h.Domains[vm.Name]; o != nil {
		def := o.Inactive
		if def == nil {
			def = o.Live
		}
		if def == nil {
			return nil
		}
		img.Before = vmFields(def, o.Autostart, o.Running)
	}
	for _, x := range p.det.ops {
		if x.Kind == OpRename && img.Before != nil {
			img.Before["name"], img.After["name"] = x.Domain, x.To
		}
	}
	return img
}

// vmFields are the fields of domain definition def that a VM's spec
// sets: memory in bytes and vCPUs as libvirt holds their maximum, which
// is what the spec writes (domain.Want).
func vmFields(def *libvirtxml.Domain, autostart, running bool) map[string]string {
	s := domain.ShapeOf(def, nil)
	return map[string]string{
		"memory":    strconv.FormatUint(uint64(s.MemoryKiB)*1024, 10),
		"vcpus":     strconv.FormatUint(uint64(s.MaxVCPUs), 10),
		"autostart": strconv.FormatBool(autostart),
		"running":   strconv.FormatBool(running),
	}
}

// vmWanted is vmFields of the definition vm's spec makes.
func vmWanted(vm *model.VM) map[string]string {
	def := domain.New(vm.Name, "kvm")
	(&domain.Want{VM: vm, Owner: &ownership.Owner{Tenant: vm.Tenant}}).Apply(def, "")
	return vmFields(def, vm.Autostart, vm.Running)
}
