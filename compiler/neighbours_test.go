package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadNeighboursKeepsEveryTenantLoaded: Load of one tenant file
// models that tenant alone, its neighbours loaded only for the checks
// between tenants; with Options.Neighbours the model holds them too, as
// site leftovers needs to tell what no tenant declares any more.
func TestLoadNeighboursKeepsEveryTenantLoaded(t *testing.T) {
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
hosts: kvm1: uri: "qemu:///system"
tenants: {
	a: {domains: ["a.test"], providers: ["pdns"]}
	b: {domains: ["b.test"], providers: ["pdns"], hosts: ["kvm1"]}
}
`
	dir := t.TempDir()
	for name, src := range map[string]string{
		"site.cue": site,
		"a.cue":    "package tenants\ntenants: a: {domain: \"a.test\", dns: zones: \"a.test\": {provider: \"pdns\", records: www: A: [\"192.0.2.1\"]}}\n",
		"b.cue":    "package tenants\ntenants: b: {domain: \"b.test\", dns: zones: \"b.test\": {provider: \"pdns\", records: www: A: [\"192.0.2.2\"]}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tenants := func(o Options) string {
		t.Helper()
		spec, err := LoadWith(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "a.cue")}, o)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tn := range spec.Tenants {
			names = append(names, tn.Name)
		}
		return strings.Join(names, ",")
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "a"},
		{Options{Neighbours: true}, "a,b"},
	} {
		if got := tenants(c.o); got != c.want {
			t.Errorf("LoadWith(a.cue, Neighbours: %t) models tenants %q, want %q", c.o.Neighbours, got, c.want)
		}
	}
	read, err := ReadOperatorFile("site.cue", []byte(site))
	if err != nil {
		t.Fatal(err)
	}
	if got := read.Hosts(); len(got) != 1 || got["kvm1"] != "qemu:///system" {
		t.Errorf("Hosts() = %v, want kvm1: qemu:///system", got)
	}
}
