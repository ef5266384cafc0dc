//go:build cgo && libvirt_dlopen

// Package netstep plans and applies the network steps of a run
// (plan.PhaseNetwork) on the hosts package's connections and
// observations: define, start and autostart a tenant's network, keep
// its DHCP host entries, refuse a cidr that overlaps another network on
// the host, and destroy or recreate a network only behind
// GATE-NET-DESTROY while nothing uses it. What goes into a network's
// definition is package network's.
package netstep
