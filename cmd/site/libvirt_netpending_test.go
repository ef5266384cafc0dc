//go:build cgo && libvirt_dlopen

package main

import (
	"strings"
	"testing"
	"time"
)

// TestNetworkCIDRPendingThroughCLI runs site against a real root
// system libvirtd: a new cidr for a running network is pending (diff
// --detailed-exitcode exits 2, saying so) until the network is
// restarted, not "No changes", and the running network gets no fixed
// address outside its range.
func TestNetworkCIDRPendingThroughCLI(t *testing.T) {
	s := systemDaemon(t)
	keep, net := s.Name("keep"), s.Name("net")
	keepCIDR, oldCIDR, newCIDR := s.CIDR(t), s.CIDR(t), s.CIDR(t)
	box := s.Name("box")
	tenant := func(netCIDR string, withNet bool, addr string) string {
		src := `package tenants

tenants: lab: {
	domain: "lab.example.test"
	networks: "` + keep + `": {host: "kvm", cidr: "` + keepCIDR + `", autostart: false}
`
		if withNet {
			src += `	networks: "` + net + `": {host: "kvm", cidr: "` + netCIDR + `", autostart: true}
`
		}
		if addr != "" {
			src += `	vms: "` + box + `": {host: "kvm", autostart: false, running: false, vcpus: 1, memory: "64MiB", nics: [{network: "` + net + `", address: "` + addr + `"}]}
`
		}
		return src + "}\n"
	}
	spec := writeSpec(t, systemLabSite(),
		"lab.cue", tenant(oldCIDR, true, strings.TrimSuffix(oldCIDR, "0/24")+"10"))
	site := specWriter(t, spec)
	site(exitOK, tenant(oldCIDR, true, strings.TrimSuffix(oldCIDR, "0/24")+"10"), "apply")

	moved := tenant(newCIDR, true, strings.TrimSuffix(newCIDR, "0/24")+"10")
	out := site(exitOK, moved, "apply")
	t.Logf("apply of the new cidr:\n%s", out)
	if !strings.Contains(out, "pending until the network is next restarted") || strings.Contains(out, "next boot") {
		t.Errorf("apply of the new cidr: got\n%s\nwant the change pending until the network is next restarted", out)
	}
	live, err := s.Virsh("net-dumpxml", net)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(live, strings.TrimSuffix(newCIDR, "0/24")) {
		t.Errorf("the running network got an address of the new cidr %s:\n%s", newCIDR, live)
	}
	out = site(exitChanges, moved, "diff", "--detailed-exitcode")
	t.Logf("diff after the apply:\n%s", out)
	if !strings.Contains(out, "already in the persistent definition") || !strings.Contains(out, "[next-boot]") {
		t.Errorf("diff after the apply: got\n%s\nwant the new cidr pending", out)
	}
	for _, cmd := range [][]string{{"net-destroy", net}, {"net-start", net}} {
		if _, err := s.Virsh(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	site(exitOK, moved, "diff", "--detailed-exitcode")

}

// TestNetworkRefusedDeleteThroughCLI runs site against a real root
// system libvirtd: a network the spec drops while a DHCP client holds a
// lease on it is reported as refused, with the reason and what to do,
// not as a change applied to another step, nor as pending until a boot.
func TestNetworkRefusedDeleteThroughCLI(t *testing.T) {
	s := systemDaemon(t)
	keep, net := s.Name("keep"), s.Name("net")
	keepCIDR, cidr := s.CIDR(t), s.CIDR(t)
	tenant := func(withNet bool) string {
		src := `package tenants

tenants: lab: {
	domain: "lab.example.test"
	networks: "` + keep + `": {host: "kvm", cidr: "` + keepCIDR + `", autostart: false}
`
		if withNet {
			src += `	networks: "` + net + `": {host: "kvm", cidr: "` + cidr + `", autostart: true}
`
		}
		return src + "}\n"
	}
	spec := writeSpec(t, systemLabSite(),
		"lab.cue", tenant(true))
	site := specWriter(t, spec)
	// A DHCP client takes a lease on the network, and the spec drops it.
	site(exitOK, tenant(true), "apply")
	info, err := s.Virsh("net-info", net)
	if err != nil {
		t.Fatal(err)
	}
	br := ""
	for _, l := range strings.Split(info, "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "Bridge:" {
			br = f[1]
		}
	}
	mac := s.TakeLease(t, br)
	// dnsmasq's lease script tells libvirt after the client has its
	// address: wait until libvirt reports it, or the diff can run first
	// (it did, under load in CI).
	for i := 0; ; i++ {
		leases, err := s.Virsh("net-dhcp-leases", net)
		if err == nil && strings.Contains(strings.ToLower(leases), strings.ToLower(mac)) {
			break
		}
		if i == 600 {
			t.Fatalf("libvirt did not report the lease of %s within 30 s: %v\n%s", mac, err, leases)
		}
		time.Sleep(50 * time.Millisecond)
	}
	dropped := tenant(false)
	out := site(exitChanges, dropped, "diff", "--detailed-exitcode")
	t.Logf("diff dropping the leased network:\n%s", out)
	if !strings.Contains(out, "- network/qemu:///system/"+net+"  [refused]") || !strings.Contains(out, "in use: 1 DHCP lease (") {
		t.Errorf("diff dropping the leased network: got\n%s\nwant the delete shown refused, naming the lease", out)
	}
	out = site(exitOK, dropped, "apply", "--yes", "--ack", "GATE-NET-DESTROY")
	t.Logf("apply dropping the leased network:\n%s", out)
	for _, bad := range []string{"applied   network", "boot", "DHCP leases", "1 applied"} {
		if strings.Contains(out, bad) {
			t.Errorf("apply dropping the leased network: got\n%s\nwant no %q", out, bad)
		}
	}
	for _, want := range []string{"refused   network/qemu:///system/" + net + ": ", "in use: 1 DHCP lease (", "virsh", "0 applied", "1 refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply dropping the leased network: got\n%s\nwant %q", out, want)
		}
	}
	if _, err := s.Virsh("net-info", net); err != nil {
		t.Errorf("the leased network went away: %v", err)
	}
}
