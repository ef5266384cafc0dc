package compiler

import (
	"strconv"

	"github.com/site-tools/site/compiler/model"
)

// Tenants granted one host share its bridges, and a NIC's MAC address
// is the guest's name on them: two NICs on one host with one MAC
// confuse the bridge's forwarding and DHCP, and one guest receives
// traffic meant for the other, another tenant's included. A NIC whose
// spec leaves mac out gets one libvirt picks unique on the host, so
// only the MACs specs write can collide, and every one is checked.

// nicAt is the first NIC seen with a MAC address on a host.
type nicAt struct {
	tenant, vm string
	pos        model.Pos
}

// uniqueMACs reports each NIC whose MAC address a NIC before it on the
// same host (of any tenant, or of the same VM) has, at its mac, naming
// both VMs.
func (c *checker) uniqueMACs(spec *model.Spec) {
	seen := map[string]nicAt{} // host URI \x00 MAC (lower case)
	for _, t := range spec.Tenants {
		if !c.next(t.Pos) {
			return
		}
		for _, v := range t.VMs {
			if v.Host == "" {
				continue // a host not granted: reported where it is named
			}
			for i, n := range v.NICs {
				if n.MAC == "" {
					continue
				}
				path := []string{"tenants", t.Name, "vms", v.Name, "nics", strconv.Itoa(i), "mac"}
				pos := v.Pos
				if f := c.src.files[v.Pos.File]; f != nil {
					pos = f.pos.pos(path...)
				}
				key := v.Host + "\x00" + n.MAC
				first, ok := seen[key]
				if !ok {
					seen[key] = nicAt{t.Name, v.Name, pos}
					continue
				}
				c.two(pos, first.pos, cuePath(path...),
					"MAC address %s of tenant %s's VM %s is the MAC of tenant %s's VM %s too, on host %s: NICs on one host share its bridges, where one MAC names one guest, so one would receive the other's traffic; give this NIC a MAC no other VM on the host has, or leave mac out and libvirt picks a unique one",
					n.MAC, t.Name, v.Name, first.tenant, first.vm, v.HostName)
			}
		}
	}
}
