//go:build cgo && libvirt_dlopen

// Package vmstep plans and applies the VM steps of a run
// (plan.PhaseVM) on the hosts package's connections and observations: a
// domain's definition, memory and vCPUs live or at the next boot, its
// power (start, the gated stop and restart), its rename, and its
// volumes (disks, a cloud-init seed, what the spec no longer wants),
// claimed in the domain's owner element before they are made and
// written through package storage. What goes into a domain's
// definition is package domain's.
package vmstep
