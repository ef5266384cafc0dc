//go:build cgo && libvirt_dlopen

package network

import (
	"encoding/xml"
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/compiler/model"
)

// DHCPHosts lists the DHCP host entries network nw needs: one per NIC of
// the tenant's VMs on nw's host that asks for a fixed address on nw.
func DHCPHosts(t *model.Tenant, nw *model.Network) ([]libvirtxml.NetworkDHCPHost, error) {
	if t == nil || !nw.ServesDHCP() {
		return nil, nil
	}
	pfx, err := netip.ParsePrefix(nw.CIDR)
	if err != nil {
		return nil, fmt.Errorf("network %s: cidr %q: %w", nw.Name, nw.CIDR, err)
	}
	pfx = pfx.Masked()
	var out []libvirtxml.NetworkDHCPHost
	byIP := map[string]string{}
	for _, vm := range t.VMs {
		if vm.Host != nw.Host {
			continue
		}
		for i, nic := range vm.NICs {
			if nic.Network != nw.Name || nic.Address == "" {
				continue
			}
			ip, err := netip.ParseAddr(nic.Address)
			if err != nil || !pfx.Contains(ip) || ip == pfx.Addr() || ip == pfx.Addr().Next() || !pfx.Contains(ip.Next()) {
				return nil, fmt.Errorf("VM %s: address %q is not a guest address of network %s (%s; the first address is the gateway)", vm.Name, nic.Address, nw.Name, nw.CIDR)
			}
			if other, dup := byIP[ip.String()]; dup {
				return nil, fmt.Errorf("VMs %s and %s both ask for %s on network %s", other, vm.Name, ip, nw.Name)
			}
			byIP[ip.String()] = vm.Name
			out = append(out, libvirtxml.NetworkDHCPHost{MAC: MAC(vm, i), Name: vm.Name, IP: ip.String()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := netip.ParseAddr(out[i].IP)
		b, _ := netip.ParseAddr(out[j].IP)
		return a.Less(b)
	})
	return out, nil
}

// HostsOf returns the DHCP host entries of a network's first address.
func HostsOf(def *libvirtxml.Network) []libvirtxml.NetworkDHCPHost {
	if def == nil || len(def.IPs) == 0 || def.IPs[0].DHCP == nil {
		return nil
	}
	return def.IPs[0].DHCP.Hosts
}

func hostLine(h libvirtxml.NetworkDHCPHost) string {
	return "mac=" + strings.ToLower(h.MAC) + " ip=" + h.IP + " name=" + h.Name
}

func HostLines(hs []libvirtxml.NetworkDHCPHost) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, hostLine(h))
	}
	return out
}

// HostXMLs renders the entries of a that b lacks, for virNetworkUpdate.
func HostXMLs(a, b []libvirtxml.NetworkDHCPHost) []string {
	in := map[string]bool{}
	for _, h := range b {
		in[hostLine(h)] = true
	}
	var out []string
	for _, h := range a {
		if in[hostLine(h)] {
			continue
		}
		x, err := xml.Marshal(libvirtxml.NetworkDHCPHost{MAC: strings.ToLower(h.MAC), Name: h.Name, IP: h.IP})
		if err != nil {
			panic(fmt.Sprintf("marshal a DHCP host: %v", err)) // a struct of strings
		}
		out = append(out, string(x))
	}
	return out
}
