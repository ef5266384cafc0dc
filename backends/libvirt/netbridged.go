//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"strings"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
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
func (h *hostObs) namesBridgedNICs() {
	byBridge := map[string][]string{} // host bridge -> bridge-mode networks on it
	for name, n := range h.networks {
		if n.Def != nil && network.ModeOf(n.Def) == model.NetBridge && n.Def.Bridge != nil {
			byBridge[n.Def.Bridge.Name] = append(byBridge[n.Def.Bridge.Name], name)
		}
	}
	if len(byBridge) == 0 {
		return
	}
	for _, o := range h.domains {
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

// checkHostBridge looks up the host bridge a bridge network joins.
// libvirt starts such a network whether the bridge exists or not, and
// only a guest's start fails later, so a missing bridge is an error of
// the network's step (the VMs on it wait behind it). A host whose
// libvirt has no interface driver cannot say: the plan notes that it
// was not checked.
func (h *hostObs) checkHostBridge(nw *model.Network) (note string, err error) {
	h.d.call()
	ifc, err := h.conn.LookupInterfaceByName(nw.Bridge)
	switch {
	case err == nil:
		_ = ifc.Free()
		return "", nil
	case conn.IsCode(err, libvirt.ERR_NO_INTERFACE):
		return "", fmt.Errorf("network %s: host bridge %s does not exist on %s; site does not make host bridges: make it first (ip link add %s type bridge, or in the host's network configuration), then run site again",
			nw.Name, nw.Bridge, nw.Host, nw.Bridge)
	}
	return fmt.Sprintf("network %s: host bridge %s was not checked on %s (libvirt's interface driver answered: %v); a guest on it starts only if it exists", nw.Name, nw.Bridge, nw.Host, err), nil
}
