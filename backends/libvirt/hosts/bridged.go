//go:build cgo && libvirt_dlopen

package hosts

import (
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/model"
)

// namesBridgedNICs reads the live interfaces of running guests that sit
// on a bridge-mode network back as interfaces on that network. libvirt's
// live XML shows such an interface as the host bridge it resolved to
// (<interface type='bridge'><source bridge='br0'/>), not as the network
// its definition names, while it keeps type='network' for NAT and
// isolated networks. Read as written, a guest on a bridged network would
// never match its spec (a pending NIC change forever), and the network's
// in-use check would not see its running interfaces.
func (h *Obs) namesBridgedNICs() {
	byBridge := map[string][]string{} // host bridge -> bridge-mode networks on it
	for name, n := range h.Networks {
		if n.Def != nil && network.ModeOf(n.Def) == model.NetBridge && n.Def.Bridge != nil {
			byBridge[n.Def.Bridge.Name] = append(byBridge[n.Def.Bridge.Name], name)
		}
	}
	if len(byBridge) == 0 {
		return
	}
	for _, o := range h.Domains {
		if !o.Running || o.Live == nil || o.Live.Devices == nil {
			continue
		}
		for i, ifc := range o.Live.Devices.Interfaces {
			if ifc.Source == nil || ifc.Source.Bridge == nil {
				continue
			}
			br := ifc.Source.Bridge.Bridge
			if name := pickNetwork(byBridge[br], o.Inactive, ifc.MAC); name != "" {
				o.Live.Devices.Interfaces[i].Source = &libvirtxml.DomainInterfaceSource{
					Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: name, Bridge: br}}
			}
		}
	}
}

// pickNetwork chooses which of the bridge-mode networks on one host
// bridge a live interface is on: the one the persistent definition names
// for the same MAC, else the only one, else none (left as libvirt says).
func pickNetwork(networks []string, inactive *libvirtxml.Domain, mac *libvirtxml.DomainInterfaceMAC) string {
	if inactive != nil && inactive.Devices != nil && mac != nil {
		for _, ifc := range inactive.Devices.Interfaces {
			if ifc.MAC == nil || !strings.EqualFold(ifc.MAC.Address, mac.Address) || ifc.Source == nil || ifc.Source.Network == nil {
				continue
			}
			for _, n := range networks {
				if n == ifc.Source.Network.Network {
					return n
				}
			}
		}
	}
	if len(networks) == 1 {
		return networks[0]
	}
	return ""
}
