//go:build cgo && libvirt_dlopen

// Package hosts is what every kind of libvirt resource site manages
// (domains, networks, storage) shares about the hosts of one run: one
// connection per host, kept until Close and opened again when the
// daemon dropped it; the count of the calls made, and the names of the
// calls a run waits for; retrying the calls that are safe to repeat;
// and one observation per host (its domains and networks, read once
// for every step on it), which the kinds' planners read and an apply
// drops. It knows no kind's plans: the packages of each kind build on
// it, and the Driver in package libvirt dispatches to them.
package hosts
