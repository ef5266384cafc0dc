//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/compiler/model"
)

// checkHostBridge looks up the host bridge a bridge network joins.
// libvirt starts such a network whether the bridge exists or not, and
// only a guest's start fails later, so a missing bridge is an error of
// the network's step (the VMs on it wait behind it). A host whose
// libvirt has no interface driver cannot say: the plan notes that it
// was not checked.
func (h *hostObs) checkHostBridge(nw *model.Network) (note string, err error) {
	h.d.Call()
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
