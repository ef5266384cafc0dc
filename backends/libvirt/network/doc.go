//go:build cgo && libvirt_dlopen

// Package network holds what site writes into a libvirt network's
// definition and reads back from it: the mode (NAT, isolated or a host
// bridge), the gateway and DHCP range, the owner element, and the DHCP
// host entries that give a tenant's NICs their fixed addresses (with
// the MAC each NIC is given, so that the entry and the domain agree).
// Planning and applying networks on a host stay in package libvirt.
package network
