package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// demoConfig is make demo-full's operator file.
func demoConfigFile() string { return repoFile("cmd/demo/site.cue") }

// TestDemoOperatorFile keeps make demo-full's operator file true to the
// example tenants: every tenant vets with it (each has a grant, each
// provider and host it names exists), and sjc's graph has everything the
// demo brings up from nothing in one apply: the secret for Cloudflare,
// the pool and the base image the keys VM's disk starts from, the
// network and the VM, then the zone.
func TestDemoOperatorFile(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var out, errOut bytes.Buffer
	demoConfig := demoConfigFile()
	if code := run([]string{"vet", "--config", demoConfig, repoFile("tenants") + "/..."}, &out, &errOut); code != exitOK {
		t.Fatalf("site vet --config %s tenants/...: exit %d\n%s%s", demoConfig, code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"graph", "--config", demoConfig, repoFile("tenants/sjc.cue")}, &out, &errOut); code != exitOK {
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

// TestDemoStateDirMatches: the scripts of make demo-full keep their state
// in the directory env.sh names, and site.cue's pool and image source
// (absolute paths, so written out) must be in it: otherwise the demo
// uploads an image from where mkbootimage never wrote one, and
// demo-stop leaves the pool's directory behind.
func TestDemoStateDirMatches(t *testing.T) {
	demoConfig := demoConfigFile()
	env, err := os.ReadFile(repoFile("cmd/demo/env.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^STATE=(\S+)$`).FindSubmatch(env)
	if m == nil {
		t.Fatal("cmd/demo/env.sh sets no STATE=")
	}
	state := string(m[1])
	site, err := os.ReadFile(demoConfig)
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile(`(?:path|source):\s*"(/[^"]+)"`).FindAllSubmatch(site, -1)
	if len(paths) != 2 {
		t.Fatalf("%s: found %d pool paths and image sources, want 2 (the pool and debian-12.qcow2)", demoConfig, len(paths))
	}
	for _, p := range paths {
		if !strings.HasPrefix(string(p[1]), state+"/") {
			t.Errorf("%s: %s is not under the demo's state %s (cmd/demo/env.sh)", demoConfig, p[1], state)
		}
	}
}
