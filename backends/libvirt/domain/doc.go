//go:build cgo && libvirt_dlopen

// Package domain holds what site writes into a libvirt domain's
// definition and how it compares two: the Want a VM of the spec makes
// (memory, vCPUs, disks on virtio, the cloud-init seed on virtio-scsi,
// NICs with the MAC package network gives them, the owner element),
// applied over a definition so that what site does not manage is kept;
// and the Shape of a definition, its projection on what site manages,
// which plans compare field by field. Planning and applying domains on
// a host stay in package libvirt.
package domain
