//go:build cgo && libvirt_dlopen

package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestNetworkApplyOnSystemDaemon runs site apply and site diff on a spec
// with a NAT network against a real root system libvirtd, with the
// host's qemu:///system mapped to it by SITE_LIBVIRT_URI_MAP: the
// network runs with its dnsmasq and autostarts, and the next diff is
// converged.
func TestNetworkApplyOnSystemDaemon(t *testing.T) {
	s := systemDaemon(t)
	name := s.Name("lan")
	spec := writeSpec(t, systemLabSite(),
		"lab.cue", `package tenants

tenants: lab: {
	domain: "lab.example.test"
	networks: "`+name+`": {host: "kvm", cidr: "`+s.CIDR(t)+`", autostart: true}
}
`)
	site := specRunner(t, spec)
	if out := site(exitChanges, "diff", "--detailed-exitcode"); !strings.Contains(out, "network/qemu:///system/"+name) {
		t.Errorf("diff: got\n%s\nwant the network's creation", out)
	}
	site(exitOK, "apply")
	info, err := s.Virsh("net-info", name)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Active:         yes", "Persistent:     yes", "Autostart:      yes"} {
		if !strings.Contains(info, want) {
			t.Errorf("virsh net-info: got\n%s\nwant %q", info, want)
		}
	}
	if libvirttest.DnsmasqPID(name) == 0 {
		t.Errorf("no dnsmasq runs for %s", name)
	}
	site(exitOK, "diff", "--detailed-exitcode")
}

// systemDaemon starts a root system libvirtd for the test (skipped, or
// failed under CI, where libvirt is missing) and maps qemu:///system to
// it.
func systemDaemon(t *testing.T) *libvirttest.System {
	t.Helper()
	if err := libvirt.Available(); err != nil {
		libvirttest.Need(t, err.Error())
	}
	s := libvirttest.StartSystem(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///system="+s.URI)
	t.Setenv("NO_COLOR", "1")
	return s
}

// systemLabSite is the operator's file granting tenant lab the host kvm,
// qemu:///system.
func systemLabSite() string {
	return siteSrc(`hosts: kvm: uri: "qemu:///system"`, grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"kvm"}})
}
