//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"fmt"
	"strings"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// Lease returns the IPv4 address the NIC ref names holds in the DHCP
// leases of the network it is on (virNetworkGetDHCPLeases), "" when the
// domain does not exist or run, or the guest has no lease yet. The NIC's
// MAC and network are read from the running domain, so a MAC libvirt
// chose is found too. It reads afresh on every call, past the run's
// cached observation: apply polls it while a guest boots.
func (d *Driver) Lease(_ context.Context, ref model.LeaseRef) (string, error) {
	c, err := d.Conn(ref.Host)
	if err != nil {
		return "", err
	}
	// One read of a lease, not the wait for it: that wait is the
	// guest's, and apply names it itself.
	defer d.Await(d.Server(ref.Host), "LookupDomainByName, IsActive, GetXMLDesc of domain "+ref.VM+", GetDHCPLeases of its network")()
	d.Call()
	dom, err := c.LookupDomainByName(ref.VM)
	if conn.IsCode(err, libvirt.ERR_NO_DOMAIN) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up domain %s on %s: %w", ref.VM, ref.Host, conn.Plain(err))
	}
	defer dom.Free()
	d.Call()
	if active, err := dom.IsActive(); err != nil || !active {
		return "", conn.Plain(err) // nil when it just does not run
	}
	d.Call()
	x, err := dom.GetXMLDesc(0)
	if err != nil {
		return "", fmt.Errorf("read domain %s on %s: %w", ref.VM, ref.Host, conn.Plain(err))
	}
	var def libvirtxml.Domain
	if err := def.Unmarshal(x); err != nil {
		return "", fmt.Errorf("domain %s on %s: %w", ref.VM, ref.Host, err)
	}
	// The spec names the domain only by name, and a domain of that
	// name may be another tenant's, or one site does not manage: its
	// address is not the VM's tenant's to publish.
	var own *ownership.Owner
	if def.Metadata != nil {
		if own, _, err = ownership.Parse(def.Metadata.XML); err != nil {
			return "", fmt.Errorf("domain %s on %s: %w", ref.VM, ref.Host, err)
		}
	}
	switch {
	case own == nil:
		return "", fmt.Errorf("domain %s on %s carries no site owner element, so its DHCP lease is not tenant %q's to publish", ref.VM, ref.Host, ref.Tenant)
	case own.Tenant != ref.Tenant:
		return "", fmt.Errorf("domain %s on %s belongs to tenant %q, not %q, so its DHCP lease is not %s's to publish: rename the VM", ref.VM, ref.Host, own.Tenant, ref.Tenant, ref.Tenant)
	}
	if def.Devices == nil || ref.NIC >= len(def.Devices.Interfaces) {
		return "", fmt.Errorf("domain %s on %s has no NIC %d to read a lease for; apply its VM step first", ref.VM, ref.Host, ref.NIC)
	}
	nic := def.Devices.Interfaces[ref.NIC]
	if nic.MAC == nil || nic.Source == nil || nic.Source.Network == nil {
		return "", fmt.Errorf("NIC %d of domain %s on %s is not on a libvirt network, whose DHCP leases site reads", ref.NIC, ref.VM, ref.Host)
	}
	network := nic.Source.Network.Network
	d.Call()
	n, err := c.LookupNetworkByName(network)
	if err != nil {
		return "", fmt.Errorf("look up network %s on %s: %w", network, ref.Host, conn.Plain(err))
	}
	defer n.Free()
	d.Call()
	leases, err := n.GetDHCPLeases()
	if err != nil {
		return "", fmt.Errorf("read the DHCP leases of network %s on %s: %w", network, ref.Host, conn.Plain(err))
	}
	// dnsmasq keeps one lease per client; should a stale one linger,
	// the one that expires last is the guest's current address.
	var addr string
	var expiry int64
	for _, l := range leases {
		if strings.EqualFold(l.Mac, nic.MAC.Address) && l.Type == libvirt.IP_ADDR_TYPE_IPV4 && (addr == "" || l.ExpiryTime.Unix() > expiry) {
			addr, expiry = l.IPaddr, l.ExpiryTime.Unix()
		}
	}
	return addr, nil
}
