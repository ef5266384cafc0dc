//go:build cgo && libvirt_dlopen

package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestUnreachableLibvirtHostPlansNothingForIt: a VM and a network on a
// libvirt host that refuses connections are not observed. The zone the
// VM publishes into is: its address is in the spec, and the VM only
// comes before it in apply's order (a diff from a runner that cannot
// reach the host showed no DNS at all). The other tenant's zone is
// planned too, and apply changes nothing anywhere (exit 1), our record
// in the dependent zone included.
func TestUnreachableLibvirtHostPlansNothingForIt(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "vmz.test.", pdnstest.RRset{Name: "old.vmz.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("lab")}}})
	srv.CreateZone(t, "other.test.")
	host := "qemu+tcp://127.0.0.1:1/system"
	src := `package tenants

tenants: lab: {
	domain: "vmz.test"
	dns: zones: "vmz.test": {
		provider: "pdns"
		ttl: 300
		records: {}
	}
	networks: "lab-lan": {host: "far", cidr: "10.77.0.0/24", autostart: true}
	vms: tiny: {
		host:      "far"
		autostart: true
		running:   true
		vcpus:     1
		memory:    "64MiB"
		disks: [{pool: "default", name: "tiny-data", size: "16MiB"}]
		nics: [{network: "lab-lan"}]
		publish: {zone: "vmz.test", names: ["tiny"], address: "192.0.2.50"}
		cloudinit: user_data: """
			#cloud-config
			hostname: tiny
			"""
	}
}
`
	office1 := `package tenants

tenants: office1: {
	domain: "other.test"
	dns: zones: "other.test": {
		provider: "pdns"
		ttl: 300
		records: www: A: ["192.0.2.80"]
	}
}
`
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)+`hosts: far: uri: "`+host+`"`,
		grant{tenant: "lab", domains: []string{"vmz.test"}, providers: []string{"pdns"}, hosts: []string{"far"}},
		grant{tenant: "office1", domains: []string{"other.test"}, providers: []string{"pdns"}})
	file := writeSpecs(t, site, map[string]string{"lab.cue": src, "office1.cue": office1})
	code, out, errOut := siteRun(t, srv, "diff", file)
	if code != exitError {
		t.Fatalf("diff exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{"! network/" + host + "/lab-lan", "! vm/" + host + "/tiny", "# dns/other.test.", "+ www A",
		"# dns/vmz.test.", "+ tiny A", "- old A"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "! dns/vmz.test.") {
		t.Errorf("the zone the VM publishes into is not observed:\n%s", out)
	}
	srv.ResetRequests("vmz.test.")
	srv.ResetRequests("other.test.")
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitError {
		t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	for _, z := range []string{"vmz.test.", "other.test."} {
		if got := srv.Requests(z).Writes(); got != 0 {
			t.Errorf("zone %s: got %d writes, want none", z, got)
		}
	}
	if got := srv.Query(t, "old.vmz.test.", "A"); len(got) != 1 {
		t.Errorf("old.vmz.test.: got %q, want it still served", got)
	}
}
