//go:build cgo && libvirt_dlopen

package network

import (
	"fmt"
	"net/netip"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// Apply writes what site manages into def: the mode, and the
// owner element; for a NAT or isolated network the gateway address (the
// CIDR's first host) and a DHCP range over the rest, for a bridge
// network the host bridge it joins. A NAT or isolated network's bridge
// name, MAC and UUID stay libvirt's (its bridge is libvirt's own; one a
// bridge network named is dropped so libvirt makes its own again).
func Apply(def *libvirtxml.Network, nw *model.Network, own *ownership.Owner, others string, hosts []libvirtxml.NetworkDHCPHost) error {
	def.Metadata = &libvirtxml.NetworkMetadata{XML: own.MetadataXML(others)}
	if nw.ModeOrNAT() == model.NetBridge {
		// libvirt's forward mode "bridge": no address, no dnsmasq, the
		// guests' taps join the host's bridge as they are.
		def.Forward = &libvirtxml.NetworkForward{Mode: "bridge"}
		def.Bridge = &libvirtxml.NetworkBridge{Name: nw.Bridge}
		def.IPs, def.MAC, def.DNS, def.Domain = nil, nil, nil, nil
		return nil
	}
	pfx, err := netip.ParsePrefix(nw.CIDR)
	if err != nil || !pfx.Addr().Is4() || pfx.Bits() > 30 {
		return fmt.Errorf("network %s: cidr %q is not an IPv4 prefix of /30 or shorter", nw.Name, nw.CIDR)
	}
	pfx = pfx.Masked()
	gw := pfx.Addr().Next()
	last := gw
	for a := gw.Next(); pfx.Contains(a.Next()); a = a.Next() {
		last = a // stops before the broadcast address
	}
	if def.Forward != nil && def.Forward.Mode == "bridge" {
		def.Bridge = nil
	}
	def.Forward = nil // isolated: no forward element, no route out
	if nw.ModeOrNAT() == model.NetNAT {
		def.Forward = &libvirtxml.NetworkForward{Mode: "nat"}
	}
	def.IPs = []libvirtxml.NetworkIP{{Address: gw.String(), Prefix: uint(pfx.Bits()),
		DHCP: &libvirtxml.NetworkDHCP{Ranges: []libvirtxml.NetworkDHCPRange{{Start: gw.Next().String(), End: last.String()}}, Hosts: hosts}}}
	return nil
}

// ModeOf is the mode a network definition has, in the spec's words.
func ModeOf(def *libvirtxml.Network) model.NetMode {
	if def.Forward == nil {
		return model.NetIsolated
	}
	return model.NetMode(def.Forward.Mode)
}

// Shape projects a network definition on what site manages.
func Shape(def *libvirtxml.Network, o *ownership.Owner) string {
	mode := string(ModeOf(def))
	if mode == string(model.NetBridge) && def.Bridge != nil {
		// Only a bridge network's bridge is site's to say.
		mode += " bridge=" + def.Bridge.Name
	}
	var ips []string
	for _, ip := range def.IPs {
		s := IPPrefix(ip)
		if ip.DHCP != nil {
			for _, r := range ip.DHCP.Ranges {
				s += " dhcp " + r.Start + "-" + r.End
			}
		}
		ips = append(ips, s)
	}
	return fmt.Sprintf("forward=%s ip=%s owner=%s", mode, strings.Join(ips, ";"), o.String())
}

// IPPrefix is a network address as ADDRESS/BITS, from a prefix or a
// netmask.
func IPPrefix(ip libvirtxml.NetworkIP) string {
	bits := ip.Prefix
	if ip.Netmask != "" {
		if m, err := netip.ParseAddr(ip.Netmask); err == nil {
			b := m.As4()
			bits = 0
			for _, x := range b {
				for ; x != 0; x <<= 1 {
					bits++
				}
			}
		}
	}
	return fmt.Sprintf("%s/%d", ip.Address, bits)
}

// Must parses network XML that observation already parsed once.
func Must(x string) *libvirtxml.Network {
	var def libvirtxml.Network
	if err := def.Unmarshal(x); err != nil {
		panic(fmt.Sprintf("network XML parsed before fails now: %v", err))
	}
	return &def
}
