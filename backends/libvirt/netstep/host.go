//go:build cgo && libvirt_dlopen

package netstep

import (
	"fmt"
	"net/netip"
	"slices"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/compiler/model"
)

// checkOverlap refuses a network whose cidr overlaps another network on
// the host that is not the tenant's own: vet compares only the networks
// the specs declare, and the host has others (libvirt's default,
// virbr0 on 192.168.122.0/24; the operator's; another tenant's whose
// file is not loaded, or that it dropped), whose addresses the tenant's
// guests would take and whose routes they would then answer for. A
// network of the tenant's own is its spec's (vet checks it, and one it
// dropped is removed in the same run). Both the persistent and the
// running definition count.
func checkOverlap(h *hosts.Obs, nw *model.Network) error {
	if nw.CIDR == "" {
		return nil
	}
	want, err := netip.ParsePrefix(nw.CIDR)
	if err != nil {
		return nil // vet refuses it; the plan says so where it builds the definition
	}
	names := make([]string, 0, len(h.Networks))
	for name := range h.Networks {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		o := h.Networks[name]
		if name == nw.Name || o.Owner != nil && o.Owner.Tenant == nw.Tenant {
			continue
		}
		for _, def := range []*libvirtxml.Network{o.Live, o.Def} {
			if def == nil {
				continue
			}
			for _, ip := range def.IPs {
				have, err := netip.ParsePrefix(network.IPPrefix(ip))
				if err != nil || !have.Overlaps(want) {
					continue
				}
				where := ""
				if def.Bridge != nil && def.Bridge.Name != "" {
					where = ", bridge " + def.Bridge.Name
				}
				whose := "which carries no site owner element (libvirt's default network, or the operator's own)"
				if o.Owner != nil {
					whose = fmt.Sprintf("which is tenant %q's", o.Owner.Tenant)
				}
				return fmt.Errorf("network %s on %s: cidr %s overlaps network %s on the host (%s%s), %s, so its guests would take addresses that network routes; pick a prefix no network on the host uses",
					nw.Name, nw.Host, nw.CIDR, name, have, where, whose)
			}
		}
	}
	return nil
}

// checkHostBridge looks up the host bridge a bridge network joins.
// libvirt starts such a network whether the bridge exists or not, and
// only a guest's start fails later, so a missing bridge is an error of
// the network's step (the VMs on it wait behind it). A host whose
// libvirt has no interface driver cannot say: the plan notes that it
// was not checked.
func checkHostBridge(h *hosts.Obs, nw *model.Network) (note string, err error) {
	h.Set.Call()
	ifc, err := h.Conn.LookupInterfaceByName(nw.Bridge)
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
