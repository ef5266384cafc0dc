//go:build cgo && libvirt_dlopen

package netstep

import (
	"net/netip"
	"strconv"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// This file says, for site's apply journal, what a network step
// found and leaves of the fields a tenant's spec sets (backends.Image),
// so that site undo can set the spec back to what was there before.
// Both sides are read the same way: Before from the observed
// definition, After from the spec as the planner writes it into one.

// JournalImage is the network step's image (backends.Imaged).
func (d *Detail) JournalImage() *backends.Image {
	if d == nil {
		return nil
	}
	return d.image
}

// journalImage is the image of the planned network: its persistent
// definition and autostart as observed, and as the spec sets them.
func (p *planner) journalImage() *backends.Image {
	nw := p.nw
	img := &backends.Image{Kind: "network", Host: nw.Host, Name: nw.Name, After: netWanted(nw)}
	if o := p.h.Networks[nw.Name]; o != nil {
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
