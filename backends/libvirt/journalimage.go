//go:build cgo && libvirt_dlopen

package libvirt

import (
	"net/netip"
	"strconv"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// This file says, for site's apply journal, what a VM or network step
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

// JournalImage is the network step's image (backends.Imaged).
func (d *netDetail) JournalImage() *backends.Image {
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
	if o := p.h.domains[vm.Name]; o != nil {
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
		if x.Kind == opRename && img.Before != nil {
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

// journalImage is the image of the planned network: its persistent
// definition and autostart as observed, and as the spec sets them.
func (p *netPlanner) journalImage() *backends.Image {
	nw := p.nw
	img := &backends.Image{Kind: "network", Host: nw.Host, Name: nw.Name, After: netWanted(nw)}
	if o := p.h.networks[nw.Name]; o != nil {
		if o.Def == nil {
			return nil // observe always parses it: nothing to journal otherwise
		}
		img.Before = netFields(o.Def, o.Autostart)
	}
	return img
}

// netFields are the fields of network definition def that a network's
// spec sets: its mode, its prefix (whose first address is the host's
// and the rest the DHCP range) or, on a host bridge, the bridge, and
// autostart.
func netFields(def *libvirtxml.Network, autostart bool) map[string]string {
	mode := network.ModeOf(def)
	f := map[string]string{"mode": string(mode), "autostart": strconv.FormatBool(autostart)}
	if mode == model.NetBridge && def.Bridge != nil {
		f["bridge"] = def.Bridge.Name
	}
	if len(def.IPs) > 0 {
		if pfx, err := netip.ParsePrefix(network.IPPrefix(def.IPs[0])); err == nil {
			f["cidr"] = pfx.Masked().String()
		}
	}
	return f
}

// netWanted is netFields of the definition nw's spec makes.
func netWanted(nw *model.Network) map[string]string {
	def := &libvirtxml.Network{Name: nw.Name}
	if err := network.Apply(def, nw, &ownership.Owner{Tenant: nw.Tenant}, "", nil); err != nil {
		return nil
	}
	return netFields(def, nw.Autostart)
}
