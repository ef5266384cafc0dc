//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestPublishLeaseEndToEnd runs site apply on a tenant whose VM boots
// the test boot image on a NAT network of a real system libvirtd and
// publishes its name with address "lease" into a real PowerDNS: the
// plan says the address comes with the lease, apply creates the guest,
// waits for its DHCP lease and writes it, PowerDNS serves exactly the
// address the network leased to the VM's MAC, and the next diff is
// converged.
func TestPublishLeaseEndToEnd(t *testing.T) {
	if err := libvirt.Available(); err != nil {
		libvirttest.Need(t, err.Error())
	}
	img := libvirttest.BootImage(t)
	srv := pdnsEnv(t)
	s := libvirttest.StartSystem(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///system="+s.URI)
	// This machine's /dev/kvm boots only paravirtualised kernels (see
	// the libvirt package's bootRig): the guest runs under TCG.
	t.Setenv(libvirt.DomainTypeEnv, "qemu")
	pool, _ := s.Pool(t, "pool")
	vm, lan := s.Name("web"), s.Name("lan")
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	s.Upload(t, pool, vm+"-root", img)

	const zone = "lease.example.test"
	site := siteSrc(`hosts: kvm: uri: "qemu:///system"`+"\n"+pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{zone}, providers: []string{"pdns"}, hosts: []string{"kvm"}})
	file := writeSpec(t, site, "lab.cue", fmt.Sprintf(`package tenants

tenants: lab: {
	domain: %[1]q
	dns: zones: %[1]q: {provider: "pdns", ttl: 300}
	networks: %[2]q: {host: "kvm", cidr: %[3]q, autostart: false}
	vms: %[4]q: {
		host:      "kvm"
		autostart: false
		vcpus:     1
		memory:    "128MiB"
		disks: [{pool: %[5]q, name: %[6]q, size: "%[7]dMiB"}]
		nics: [{network: %[2]q}]
		cloudinit: user_data: "#cloud-config\n"
		publish: {zone: %[1]q, names: ["www"], address: "lease"}
	}
}
`, zone, lan, s.CIDR(t), vm, pool, vm+"-root", fi.Size()>>20))

	code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file)
	if code != exitChanges || !strings.Contains(out, "address known after the guest takes its DHCP lease") {
		t.Fatalf("diff: exit %d, want %d and the record waiting for the lease\nstdout:\n%s\nstderr:\n%s", code, exitChanges, out, errOut)
	}
	// Nothing lives at www yet: the waiting record is a create, in the
	// text, the summary line's count and the JSON alike.
	key := "dns/" + zone + "./www." + zone + "./A"
	if !strings.Contains(out, "  + www A  [live]\n") {
		t.Errorf("diff does not show www A as a create:\n%s", out)
	}
	creates, updates := strings.Count(out, "\n  + "), strings.Count(out, "\n  ~ ")
	if summary := fmt.Sprintf("Plan: %d to create, %d to update,", creates, updates); !strings.Contains(out, summary) {
		t.Errorf("the summary line does not count the %d creates and %d updates listed (want %q):\n%s", creates, updates, summary, out)
	}
	_, js, errOut := siteRun(t, srv, "diff", "--format", "json", file)
	var p struct {
		Changes []struct{ Key, Action string }
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("diff --format json: %v\n%s\nstderr:\n%s", err, js, errOut)
	}
	var actions []string
	for _, c := range p.Changes {
		if c.Key == key {
			actions = append(actions, c.Action)
		}
	}
	if len(actions) != 1 || actions[0] != "create" {
		t.Errorf("JSON plan: %s has actions %q, want one create\n%s", key, actions, js)
	}
	code, out, errOut = siteRun(t, srv, "apply", file)
	if code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "waiting for the DHCP lease of VM "+vm) {
		t.Errorf("apply's progress does not say it waits for the lease:\n%s", errOut)
	}

	// What the network leased to the guest's MAC, read by virsh as an
	// operator would.
	mac, err := s.Virsh("domiflist", vm)
	if err != nil {
		t.Fatal(err)
	}
	leases, err := s.Virsh("net-dhcp-leases", lan)
	if err != nil {
		t.Fatal(err)
	}
	var addr string
	for _, l := range strings.Split(leases, "\n") {
		f := strings.Fields(l)
		if len(f) >= 6 && strings.Contains(mac, f[2]) && strings.Contains(f[4], "/") {
			addr = strings.Split(f[4], "/")[0]
			if f[5] != vm {
				t.Errorf("lease %q: hostname %q, want %q from the seed", l, f[5], vm)
			}
		}
	}
	if addr == "" {
		t.Fatalf("no lease for the guest's NIC\ndomiflist:\n%s\nnet-dhcp-leases:\n%s", mac, leases)
	}
	if got := srv.Query(t, "www."+zone+".", "A"); len(got) != 1 || got[0] != "300 "+addr {
		t.Errorf("www.%s serves %q, want the leased %s", zone, got, addr)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file); code != exitOK {
		t.Errorf("second diff: exit %d, want %d (converged)\nstdout:\n%s\nstderr:\n%s", code, exitOK, out, errOut)
	}
}

// TestApplyLeaseTimeoutPositive: --lease-timeout must be a positive
// duration; anything else is refused before anything is observed.
func TestApplyLeaseTimeoutPositive(t *testing.T) {
	for _, v := range []string{"0s", "-1m"} {
		var out, errOut bytes.Buffer
		code := run([]string{"apply", "--lease-timeout", v, "no-such-file.cue"}, &out, &errOut)
		if code != exitError || !strings.Contains(errOut.String(), "--lease-timeout") || !strings.Contains(errOut.String(), "want a positive duration") {
			t.Errorf("--lease-timeout %s: exit %d, stderr %q; want exit %d and the flag named", v, code, errOut.String(), exitError)
		}
	}
}
