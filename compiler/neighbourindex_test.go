package compiler

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/specgen"
)

// loadOne loads the tenant file file of dir (site.cue) as site diff
// does, through cache (nil: none), and says what it reported: the
// error, or the tenants modelled and each one's zones, and the warnings.
func loadOne(t *testing.T, dir, file string, cache *Cache) string {
	t.Helper()
	var warned Diagnostics
	spec, err := LoadWith(filepath.Join(dir, "site.cue"), []string{file}, Options{Cache: cache, Warn: func(d Diagnostics) { warned = d }})
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error:\n%v\n", err)
	} else {
		for _, tn := range spec.Tenants {
			fmt.Fprintf(&b, "tenant %s: %d zones, %d VMs, %d networks\n", tn.Name, len(tn.Zones), len(tn.VMs), len(tn.Networks))
		}
	}
	for _, d := range warned {
		fmt.Fprintf(&b, "warning: %s\n", d.Format(nil))
	}
	return b.String()
}

// tenantFiles lists the tenant files of dir, site.cue left out.
func tenantFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".cue" && p != filepath.Join(dir, "site.cue") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestNeighbourIndexMatchesWholeLoad: loading one tenant file among
// others reports what it reported when every neighbour was built and
// checked whole, whether its neighbours are checked from their files
// without a cache, through an empty cache, or from the indexes a
// previous run kept. Every archive of the rules and valid corpora with
// more than one tenant file is loaded once per tenant file.
func TestNeighbourIndexMatchesWholeLoad(t *testing.T) {
	archives, err := filepath.Glob("testdata/rules/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := filepath.Glob("testdata/valid/*.txtar")
	archives = append(archives, valid...)
	checked := 0
	for _, archive := range archives {
		dir := extract(t, archive)
		files := tenantFiles(t, dir)
		if len(files) < 2 {
			continue
		}
		for _, file := range files {
			splitNeighbours = false
			want := loadOne(t, dir, file, nil)
			splitNeighbours = true
			cache := OpenCache(t.TempDir())
			for _, run := range []struct {
				name  string
				cache *Cache
			}{{"without a cache", nil}, {"through an empty cache", cache}, {"from the indexes", cache}} {
				if got := loadOne(t, dir, file, run.cache); got != want {
					t.Errorf("%s, %s %s:\n%s\nwant, every neighbour checked whole:\n%s", filepath.Base(archive), filepath.Base(file), run.name, got, want)
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("compared %d loads, want the corpus's tenant files among others (20 or more)", checked)
	}
}

// neighbourFixture writes site.cue granting tenants a and b host kvm1
// and their domains, and their files; it returns the directory.
func neighbourFixture(t *testing.T, a, b string) string {
	t.Helper()
	dir := t.TempDir()
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
hosts: kvm1: uri: "qemu:///system"
tenants: {
	a: {domains: ["a.test"], providers: ["pdns"], hosts: ["kvm1"]}
	b: {domains: ["b.test"], providers: ["pdns"], hosts: ["kvm1"]}
}
`
	for name, src := range map[string]string{"site.cue": site, "a.cue": a, "b.cue": b} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func tenantSrc(name, vms string) string {
	return "package tenants\ntenants: " + name + ": {domain: \"" + name + ".test\", dns: zones: \"" + name +
		".test\": {provider: \"pdns\", records: www: A: [\"192.0.2.1\"]}, " + vms + "}\n"
}

// indexOf is where cache keeps the neighbour index of the file at path
// in dir, and the entry beside it.
func indexOf(t *testing.T, cache *Cache, dir, path string) (index, entry string) {
	t.Helper()
	site, err := os.ReadFile(filepath.Join(dir, "site.cue"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := cache.keyer(site)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key := keys.key(path, data)
	return cache.entry(indexKey(key)), cache.entry(key)
}

// TestNeighbourIndexCatchesClash: a clash with a neighbour read as its
// index is caught. The neighbour's whole entry is taken away first and
// is not written again: the index alone stood for it.
func TestNeighbourIndexCatchesClash(t *testing.T) {
	const mac = `vms: web: {host: "kvm1", autostart: true, nics: [{network: "lan", mac: "52:54:00:00:00:01"}]}, networks: lan: {host: "kvm1", cidr: "10.9.0.0/24", autostart: true}`
	dir := neighbourFixture(t, tenantSrc("a", ""), tenantSrc("b", mac))
	cache := OpenCache(t.TempDir())
	a, b := filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")
	if got := loadOne(t, dir, a, cache); strings.Contains(got, "error") {
		t.Fatalf("first load: %s", got)
	}
	index, entry := indexOf(t, cache, dir, b)
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("no index of b.cue after a load of a.cue: %v", err)
	}
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	clash := strings.ReplaceAll(strings.ReplaceAll(mac, "10.9.", "10.8."), "lan", "net")
	if err := os.WriteFile(a, []byte(tenantSrc("a", strings.ReplaceAll(clash, "web", "db"))), 0o644); err != nil {
		t.Fatal(err)
	}
	got := loadOne(t, dir, a, cache)
	if !strings.Contains(got, "MAC address 52:54:00:00:00:01 of tenant b's VM web is the MAC of tenant a's VM db too") &&
		!strings.Contains(got, "MAC address 52:54:00:00:00:01 of tenant a's VM db is the MAC of tenant b's VM web too") {
		t.Errorf("a's MAC clash with b, b read as its index:\n%s", got)
	}
	if _, err := os.Stat(entry); err == nil {
		t.Error("b.cue's entry was written again: its index did not stand for it")
	}
}

// TestNeighbourIndexChangedClaim: a neighbour that changes what it
// claims is read anew, not as the index of what it was: its new claim
// clashes.
func TestNeighbourIndexChangedClaim(t *testing.T) {
	dir := neighbourFixture(t, tenantSrc("a", `vms: web: {host: "kvm1", autostart: true}`), tenantSrc("b", `vms: db: {host: "kvm1", autostart: true}`))
	cache := OpenCache(t.TempDir())
	a, b := filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")
	if got := loadOne(t, dir, a, cache); strings.Contains(got, "error") {
		t.Fatalf("first load: %s", got)
	}
	if got := loadOne(t, dir, a, cache); strings.Contains(got, "error") {
		t.Fatalf("second load, b from its index: %s", got)
	}
	if err := os.WriteFile(b, []byte(tenantSrc("b", `vms: web: {host: "kvm1", autostart: true}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := loadOne(t, dir, a, cache); !strings.Contains(got, "VM web on host qemu:///system is declared by tenants a and b") {
		t.Errorf("b now declares a's VM web too; load of a.cue said:\n%s", got)
	}
}

// TestNeighbourIndexDamaged: an index cut short, with a byte more, or
// for another file is not read.
func TestNeighbourIndexDamaged(t *testing.T) {
	dir := t.TempDir()
	if _, err := specgen.WriteZones(dir, specgen.PowerDNS{URL: "http://127.0.0.1:8081"}, 2, 3, 4); err != nil {
		t.Fatal(err)
	}
	r, tn := builtNeighbour(t, dir, "t0001.cue")
	body, err := encodeIndex(r, tn, Diagnostics{{Pos: model.Pos{File: r.path, Line: 2, Col: 1}, Msg: "kept", Warning: true}})
	if err != nil {
		t.Fatal(err)
	}
	if decodeIndex(string(body), r.path) == nil {
		t.Fatal("a whole index was not read")
	}
	for n := range len(body) {
		if decodeIndex(string(body[:n]), r.path) != nil {
			t.Errorf("an index cut to %d of %d bytes was read", n, len(body))
		}
	}
	if decodeIndex(string(append(bytes.Clone(body), 0)), r.path) != nil {
		t.Error("an index with a byte more was read")
	}
	if decodeIndex(string(body), filepath.Join(dir, "t0000.cue")) != nil {
		t.Error("t0001.cue's index was read for t0000.cue")
	}
}

// TestNeighbourIndexRoundTrip: an index reads back as the tenant cut
// down (stubTenant), with its diagnostics and the positions the checks
// between tenants read.
func TestNeighbourIndexRoundTrip(t *testing.T) {
	dir := neighbourFixture(t, tenantSrc("a", ""), tenantSrc("b",
		`vms: web: {host: "kvm1", autostart: true, disks: [{pool: "default", name: "web", size: "1GiB"}], nics: [{network: "lan", mac: "52:54:00:00:00:01"}]}, networks: lan: {host: "kvm1", cidr: "10.9.0.0/24", autostart: true}`))
	r, tn := builtNeighbour(t, dir, "b.cue")
	diags := Diagnostics{{Pos: model.Pos{File: r.path, Line: 2, Col: 1}, Msg: "kept", Warning: true}}
	body, err := encodeIndex(r, tn, diags)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeIndex(string(body), r.path)
	if got == nil {
		t.Fatal("not read back")
	}
	if want := stubTenant(tn); !reflect.DeepEqual(got.index.tenant, want) {
		t.Errorf("tenant read back\n%+v\nwant\n%+v", got.index.tenant, want)
	}
	if !reflect.DeepEqual(got.index.diags, diags) || got.strings != r.strings {
		t.Errorf("diagnostics %v, strings %d; want %v, %d", got.index.diags, got.strings, diags, r.strings)
	}
	mac := []string{"tenants", "b", "vms", "web", "nics", "0", "mac"}
	if p, want := got.pos.pos(mac...), r.pos.pos(mac...); p != want || p.Line < 2 {
		t.Errorf("the MAC's position read back as %v, want %v", p, want)
	}
}

// builtNeighbour evaluates and builds the tenant of file name in dir.
func builtNeighbour(t *testing.T, dir, name string) (*fileResult, *model.Tenant) {
	t.Helper()
	path := filepath.Join(dir, name)
	w := watch(Options{}, path)
	defer w.stop()
	results, err := evaluate([]input{{path: path}}, w, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	site, err := os.ReadFile(filepath.Join(dir, "site.cue"))
	if err != nil {
		t.Fatal(err)
	}
	op, diags := operatorSource("site.cue", site)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	r := results[0].withinStrings(1 << 30)
	f := buildFile(op, r, map[string]*fileResult{strings.TrimSuffix(name, ".cue"): r})
	if len(f.tenants) != 1 || len(r.diags)+len(f.diags) > 0 {
		t.Fatalf("%s built into %d tenants: %v %v", name, len(f.tenants), r.diags, f.diags)
	}
	return r, f.tenants[0]
}

// TestNeighbourIndexTiedReadWhole: a neighbour whose index was kept
// while no other file's zone was above its own is read whole once one
// is: the delegation the scoped tenant now writes is checked against
// the neighbour's apex NS, which its index does not hold.
func TestNeighbourIndexTiedReadWhole(t *testing.T) {
	dir := t.TempDir()
	const site = `package site
providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}
tenants: {
	acme: {domains: ["acme.example"], providers: ["pdns"]}
	shop: {delegate: ["shop.acme.example"], providers: ["pdns"]}
}
`
	zone := func(tenant, domain, name, records string) string {
		return "package tenants\ntenants: " + tenant + ": {domain: \"" + domain + "\", dns: zones: \"" + name + "\": {provider: \"pdns\", records: {" + records + "}}}\n"
	}
	acme := filepath.Join(dir, "acme.cue")
	for name, src := range map[string]string{
		"site.cue": site,
		"acme.cue": zone("acme", "acme.example", "x.acme.example", `www: A: ["192.0.2.1"]`),
		"shop.cue": zone("shop", "shop.acme.example", "shop.acme.example", `"@": NS: ["ns.example.net."]`),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := OpenCache(t.TempDir())
	if got := loadOne(t, dir, acme, cache); strings.Contains(got, "error") {
		t.Fatalf("first load: %s", got)
	}
	index, _ := indexOf(t, cache, dir, filepath.Join(dir, "shop.cue"))
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("no index of shop.cue while no zone was above its own: %v", err)
	}
	if err := os.WriteFile(acme, []byte(zone("acme", "acme.example", "acme.example", `shop: NS: ["ns.evil.example."]`)), 0o644); err != nil {
		t.Fatal(err)
	}
	splitNeighbours = false
	want := loadOne(t, dir, acme, nil)
	splitNeighbours = true
	got := loadOne(t, dir, acme, cache)
	if !strings.Contains(got, "NS names ns.evil.example., which tenant shop's zone shop.acme.example. does not name at its apex") || got != want {
		t.Errorf("got\n%s\nwant, shop.cue read whole:\n%s", got, want)
	}
}
