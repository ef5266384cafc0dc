//go:build !cgo || !libvirt_dlopen

package main

import "testing"

// libvirtTestHost skips t in a build without libvirt: the test's spec
// declares a network, which this binary refuses (see
// providers.Set.Check). Run the tests with cgo and -tags libvirt_dlopen.
func libvirtTestHost(t *testing.T) {
	t.Helper()
	t.Skip("this build of site has no libvirt backend (run go test with cgo and -tags libvirt_dlopen)")
}
