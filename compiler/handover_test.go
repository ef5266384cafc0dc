package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const handoverSite = `package site

hosts: kvm1: uri: "qemu:///system"
providers: {
	pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
	pdns2: powerdns: {url: "http://127.0.0.1:8082", api_key: env: "PDNS_API_KEY"}
}
tenants: {
	a: {domains: ["hand.test"], providers: ["pdns", "pdns2"], hosts: ["kvm1"]}
	b: {domains: ["b.test"], names: ["www.hand.test", "x.sub.hand.test"], providers: ["pdns", "pdns2"]}
	c: {domains: ["c.test"], providers: ["pdns"]}
}
`

// loadHandover writes site.cue and the tenant files (name -> body of
// tenants: NAME: {...}) into a temporary directory and loads it all.
func loadHandover(t *testing.T, tenants map[string]string) (text func() string, err error) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("site.cue", handoverSite)
	if err := os.MkdirAll(filepath.Join(dir, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range tenants {
		write(filepath.Join("tenants", name+".cue"), "package tenants\n\ntenants: "+name+": {\n"+body+"\n}\n")
	}
	_, err = Load(filepath.Join(dir, "site.cue"), []string{dir + "/tenants/..."})
	var diags Diagnostics
	if err != nil && !errors.As(err, &diags) {
		t.Fatalf("Load returned %T, want Diagnostics: %v", err, err)
	}
	return func() string { return strings.ReplaceAll(diags.Error(), dir+string(filepath.Separator), "") }, err
}

const (
	handA     = `domain: "hand.test"` + "\n" + `dns: zones: "hand.test": {provider: "pdns", records: {"@": A: ["192.0.2.1"], api: A: ["192.0.2.2"]}}`
	handAWWW  = `domain: "hand.test"` + "\n" + `dns: zones: "hand.test": {provider: "pdns", records: {"@": A: ["192.0.2.1"], www: A: ["192.0.2.80"]}}`
	handBName = `domain: "b.test"` + "\n" + `dns: names: "www.hand.test": {provider: "pdns", A: ["192.0.2.80"]}`
)

// TestHandoverVet: a single name site.cue grants (names:) is written by
// its tenant with dns: names into the zone of the tenant whose domain
// holds it, and one writer per name holds across both: the zone's
// tenant still writing it is refused, as is a tenant it is not granted
// to, a zone at it, or a provider that is not the zone's.
func TestHandoverVet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tenants map[string]string
		want    string // in the diagnostics; "" for none
	}{
		{"granted name, given up", map[string]string{"a": handA, "b": handBName}, ""},
		// An expression: CUE decodes the file, not the plain-data path.
		{"granted name, evaluated", map[string]string{"a": handA, "b": `domain: "b.test"` + "\n" +
			`dns: names: "www.hand.test": {provider: "pd" + "ns", A: ["192.0.2." + "80"]}`}, ""},
		{"below a granted name is the zone's", map[string]string{"a": `domain: "hand.test"` + "\n" +
			`dns: zones: "hand.test": {provider: "pdns", records: {"x.www": A: ["192.0.2.3"]}}`, "b": handBName}, ""},
		{"two writers", map[string]string{"a": handAWWW, "b": handBName},
			"www.hand.test. is written by tenant a (zone hand.test.) and granted to tenant b in site.cue (names:): two writers"},
		{"a VM of a publishes it", map[string]string{"a": handA + "\n" +
			`vms: web: {host: "kvm1", autostart: true, publish: {zone: "hand.test", names: ["www"], address: "192.0.2.80"}}`, "b": handBName},
			"www.hand.test. A is a single name site.cue grants tenant b (names:): one writer per name"},
		{"not granted", map[string]string{"a": handA, "b": `domain: "b.test"` + "\n" + `dns: names: "api.hand.test": {provider: "pdns", A: ["192.0.2.80"]}`},
			"name api.hand.test. is not a single name site.cue grants tenant b"},
		{"granted to another", map[string]string{"a": handA, "b": handBName, "c": `domain: "c.test"` + "\n" + `dns: names: "www.hand.test": {provider: "pdns", A: ["192.0.2.80"]}`},
			"name www.hand.test. is granted to tenant b in site.cue (names:), not to tenant c"},
		{"a zone at a single name", map[string]string{"a": handA, "b": `domain: "b.test"` + "\n" + `dns: zones: "www.hand.test": {provider: "pdns"}`},
			"zone www.hand.test. is a single name site.cue grants tenant b (names:)"},
		{"another provider", map[string]string{"a": handA, "b": `domain: "b.test"` + "\n" + `dns: names: "www.hand.test": {provider: "pdns2", A: ["192.0.2.80"]}`},
			`www.hand.test. lies in zone hand.test., which is on provider pdns, not pdns2: write provider: "pdns"`},
		{"below a delegation", map[string]string{"a": `domain: "hand.test"` + "\n" +
			`dns: zones: "hand.test": {provider: "pdns", records: {"@": NS: ["ns1.example.net."], sub: NS: ["ns1.example.net."]}}`,
			"b": `domain: "b.test"` + "\n" + `dns: names: "x.sub.hand.test": {provider: "pdns", A: ["192.0.2.80"]}`},
			"x.sub.hand.test. lies below sub.hand.test., which zone hand.test. of tenant a delegates (NS): records written there are never served"},
		{"no zone holds it", map[string]string{"b": handBName},
			"no tenant declares a zone that holds www.hand.test."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := loadHandover(t, tc.tenants)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want no diagnostics, got:\n%s", text())
			case tc.want != "" && err == nil:
				t.Fatalf("want %q, got no diagnostics", tc.want)
			case tc.want != "" && !strings.Contains(text(), tc.want):
				t.Fatalf("want %q in:\n%s", tc.want, text())
			}
		})
	}
}

// TestHandoverModel: the single name lands in the zone that holds it,
// with the zone's tenant as Within, and that zone lists it as handed.
func TestHandoverModel(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"site.cue":      handoverSite,
		"tenants/a.cue": "package tenants\n\ntenants: a: {\n" + handA + "\n}\n",
		"tenants/b.cue": "package tenants\n\ntenants: b: {\n" + handBName + "\n}\n",
		"tenants/c.cue": "package tenants\n\ntenants: c: domain: \"c.test\"\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := Load(filepath.Join(dir, "site.cue"), []string{dir + "/tenants/..."})
	if err != nil {
		t.Fatal(err)
	}
	a, b := spec.Tenants[0], spec.Tenants[1]
	if len(b.Names) != 1 {
		t.Fatalf("tenant b has %d zones of names, want 1", len(b.Names))
	}
	n := b.Names[0]
	if n.Name != "hand.test." || n.Within != "a" || n.Tenant != "b" || n.Provider.Name != "pdns" {
		t.Errorf("names zone = %s within %q of %q on %q, want hand.test. within \"a\" of \"b\" on \"pdns\"", n.Name, n.Within, n.Tenant, n.Provider.Name)
	}
	if len(n.RRsets) != 1 || n.RRsets[0].Name != "www.hand.test." || n.RRsets[0].TTL != singleTTL {
		t.Errorf("names zone RRsets = %+v, want www.hand.test. A with TTL %d", n.RRsets, singleTTL)
	}
	if got := a.Zones[0].Handed["www.hand.test."]; got != "b" {
		t.Errorf("zone hand.test. hands www.hand.test. to %q, want \"b\"", got)
	}
}

// TestHandoverFromGrantAlone: the zone's Handed comes from site.cue's
// grant, not from the other tenant's file: a zone applied while tenant
// b's file is not read (or does not write the name yet) still never
// deletes the name granted away.
func TestHandoverFromGrantAlone(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"site.cue":      handoverSite,
		"tenants/a.cue": "package tenants\n\ntenants: a: {\n" + handA + "\n}\n",
		"tenants/b.cue": "package tenants\n\ntenants: b: domain: \"b.test\"\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "tenants", "a.cue")})
	if err != nil {
		t.Fatal(err)
	}
	got := spec.Tenants[0].Zones[0].Handed
	if len(got) != 2 || got["www.hand.test."] != "b" || got["x.sub.hand.test."] != "b" {
		t.Errorf("zone hand.test. Handed = %v, want www and x.sub to b", got)
	}
}
