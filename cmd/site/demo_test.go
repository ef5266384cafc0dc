package main

import (
	"bytes"
	"strings"
	"testing"
)

// demoConfig is make demo-full's operator file.
const demoConfig = "../demo/site.cue"

// TestDemoOperatorFile keeps make demo-full's operator file true to the
// example tenants: every tenant vets with it (each has a grant, each
// provider and host it names exists), and sjc's graph has everything the
// demo brings up from nothing in one apply: the secret for Cloudflare,
// the pool and the base image the keys VM's disk starts from, the
// network and the VM, then the zone.
func TestDemoOperatorFile(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var out, errOut bytes.Buffer
	if code := run([]string{"vet", "--config", demoConfig, "../../tenants/..."}, &out, &errOut); code != exitOK {
		t.Fatalf("site vet --config %s ../../tenants/...: exit %d\n%s%s", demoConfig, code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"graph", "--config", demoConfig, "../../tenants/sjc.cue"}, &out, &errOut); code != exitOK {
		t.Fatalf("site graph: exit %d\n%s", code, errOut.String())
	}
	for _, step := range []string{
		`"secret/bao/dns/cloudflare#token"`,
		`"pool/qemu:///system/default"`,
		`"image/qemu:///system/default/debian-12.qcow2"`,
		`"network/qemu:///system/sjc-lan"`,
		`"vm/qemu:///system/keys"`,
		`"dns/sjc.example.net."`,
	} {
		if !strings.Contains(out.String(), step+" [label") {
			t.Errorf("site graph --config %s tenants/sjc.cue has no step %s:\n%s", demoConfig, step, out.String())
		}
	}
}
