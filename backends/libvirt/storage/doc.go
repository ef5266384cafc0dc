//go:build cgo && libvirt_dlopen

// Package storage is a host's storage as a run's steps read and write
// it. It reads, once per run beside the host's observation
// (hosts.Kept): a volume by pool and name, with its format, size,
// backing file and unfinished upload markers; a pool that is missing or
// not active, and why its volumes cannot be read yet; the directory of
// a declared pool that does not exist yet, read as libvirt will read
// it; files libvirt does not list; and what a volume's header names, as
// libvirt probes it. It writes (Writer): volumes, and uploads under a
// marker in the pool that is also their lock between runs (marker.go).
// And it lists what uploads that did not finish left (LeftUploads), for
// site leftovers.
package storage
