//go:build cgo && libvirt_dlopen

// Package conn is the libvirt backend's connection layer, shared by the
// packages for each kind of resource: opening a connection within a
// time limit, libvirt's keepalive and the hosts given up on for going
// silent, and libvirt's errors as the user sees them (classified, in
// libvirt's own words, with what to do).
package conn
