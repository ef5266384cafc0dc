//go:build cgo && libvirt_dlopen

package network

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// MAC is the MAC address site writes for a VM's NIC: the declared one,
// else, when the NIC asks for a fixed address (which the network hands
// out by MAC), one derived from tenant, VM and NIC position, so it is the
// same on every run and every machine. Otherwise libvirt picks one.
func MAC(vm *model.VM, i int) string {
	nic := vm.NICs[i]
	if nic.MAC != "" {
		return strings.ToLower(nic.MAC)
	}
	if nic.Address == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("site-mac\x00%s\x00%s\x00%d", vm.Tenant, vm.Name, i)))
	return fmt.Sprintf("52:54:00:%02x:%02x:%02x", sum[0], sum[1], sum[2])
}
