package compiler

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/specgen"
)

// TestEarlyZones: Options.Early is given the zones of the files at the
// paths loaded whose entries the cache holds, as the model holds them
// (name, provider, TTL), and nothing of a file the cache does not hold,
// of a file beside them, of a file with a problem of its own, or of a
// file declaring a tenant it is not named after, a zone outside its
// grant or more zones than its grant's limit, or of a tenant split
// over two files (each within the limit, both past it together).
func TestEarlyZones(t *testing.T) {
	outside := func(s string) string {
		return strings.Replace(s, `"z001.t0000.example.test"`, `"z001.t0001.example.test"`, 1)
	}
	cases := []struct {
		name   string
		tenant func(string) string // rewrites t0000.cue
		site   func(string) string // rewrites site.cue
		extra  map[string][]byte   // more files in tenants/
		paths  []string            // what is loaded, below tenants/
		want   []string            // zones given on the cached load
		loads  bool                // the load succeeds
		memory uint64              // --eval-memory of the cached load
	}{
		{name: "cached tenant", want: []string{"z000.t0000.example.test.", "z001.t0000.example.test.", "z002.t0000.example.test."}, loads: true},
		{name: "only the files loaded", paths: []string{"t0001.cue"}, want: []string{"t0001.example.test."}, loads: true},
		{name: "a problem of its own", tenant: func(s string) string {
			return strings.Replace(s, `AAAA: ["2001:db8:2::1"]`, `AAAA: 5`, 1)
		}},
		{name: "a provider not granted", tenant: func(s string) string {
			return strings.Replace(s, `provider: "pdns"`, `provider: "other"`, 1)
		}},
		{name: "a zone outside the grant", tenant: outside},
		{name: "more zones than its limit", site: func(s string) string {
			return strings.Replace(s, `hosts: ["kvm1"]}`, `hosts: ["kvm1"], limits: zones: 2}`, 1)
		}},
		{name: "a file named for another tenant", extra: map[string][]byte{"t0002.cue": specgen.Tenant(1, 2)}, paths: []string{"t0002.cue"}},
		{name: "a tenant split over two files", site: func(s string) string {
			return strings.Replace(s, `hosts: ["kvm1"]}`, `hosts: ["kvm1"], limits: zones: 3}`, 1)
		}, extra: map[string][]byte{"team/t0000.cue": []byte(strings.ReplaceAll(string(specgen.Zones(0, 3, 2)), `"z00`, `"y00`))},
			paths: []string{"..."}, want: []string{"t0001.example.test."}},
		// Cached under the default budget (64 MiB of strings), loaded
		// under one of 128 MiB (8 MiB of strings), which refuses it.
		{name: "strings past this run's budget", tenant: func(s string) string {
			return strings.Replace(s, "\tdns: zones: {", "\tvms: big: {host: \"kvm1\", autostart: true, cloudinit: user_data: \""+strings.Repeat("x", 10<<20)+"\"}\n\tdns: zones: {", 1)
		}, memory: 128 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tenants := filepath.Join(dir, "tenants")
			zones := string(specgen.Zones(0, 3, 2))
			if tc.tenant != nil {
				zones = tc.tenant(zones)
			}
			site := string(specgen.SiteFor(specgen.PowerDNS{URL: "http://127.0.0.1:8081"}, 0, 3))
			if tc.site != nil {
				site = tc.site(site)
			}
			files := map[string]string{
				filepath.Join(dir, "site.cue"):      site,
				filepath.Join(tenants, "t0000.cue"): zones,
				filepath.Join(tenants, "t0001.cue"): string(specgen.Tenant(1, 2)),
			}
			for name, data := range tc.extra {
				files[filepath.Join(tenants, name)] = string(data)
			}
			if err := os.MkdirAll(tenants, 0o755); err != nil {
				t.Fatal(err)
			}
			for p, data := range files {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			paths := []string{filepath.Join(tenants, "t0000.cue")}
			if tc.paths != nil {
				paths = nil
				for _, p := range tc.paths {
					paths = append(paths, filepath.Join(tenants, p))
				}
			}
			cache := OpenCache(t.TempDir())
			var mu sync.Mutex
			var given []*model.Zone
			o := Options{Cache: cache, Early: func(z *model.Zone) {
				mu.Lock()
				defer mu.Unlock()
				given = append(given, z)
			}}
			load := func() (*model.Spec, error) { return LoadWith(filepath.Join(dir, "site.cue"), paths, o) }
			// Under the default budget, a case with a budget of its own
			// loads the first time.
			if _, err := load(); (err == nil) != (tc.loads || tc.memory != 0) {
				t.Fatalf("first load: error %v, want success %v", err, tc.loads || tc.memory != 0)
			}
			if len(given) != 0 {
				t.Fatalf("a load with nothing cached gave %d zones early", len(given))
			}
			o.EvalMemory = tc.memory
			spec, err := load()
			if (err == nil) != tc.loads {
				t.Fatalf("cached load: error %v, want success %v", err, tc.loads)
			}
			var names []string
			for _, z := range given {
				names = append(names, z.Name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Fatalf("given early: %v, want %v", names, tc.want)
			}
			if spec == nil {
				return
			}
			built := map[string]*model.Zone{}
			for _, tn := range spec.Tenants {
				for _, z := range tn.Zones {
					built[z.Name] = z
				}
			}
			for _, z := range given {
				b := built[z.Name]
				if b == nil || z.Tenant != b.Tenant || z.TTL != b.TTL || !reflect.DeepEqual(z.Provider, b.Provider) {
					t.Errorf("zone %s given early as %+v, built as %+v", z.Name, z, b)
				}
			}
		})
	}
}

// TestDecodeEntryGivesTenantsFirst: decodeEntry gives an entry's
// tenants before it reads their records and positions (what makes a
// read ahead start early), then reads those as before.
func TestDecodeEntryGivesTenantsFirst(t *testing.T) {
	want := entryFixture()
	body, err := encodeEntry(want)
	if err != nil {
		t.Fatal(err)
	}
	var early *fileResult
	got, ok := decodeEntry(body, want.path, func(r *fileResult) {
		if len(r.pos.at) != 0 {
			t.Errorf("given with %d positions, want none read yet", len(r.pos.at))
		}
		if z := r.tenants["t"].DNS.Zones["t.example"]; z == nil || z.Records != nil {
			t.Errorf("zone t.example given as %+v, want it without its records", z)
		}
		early = r
	})
	if !ok || early == nil {
		t.Fatalf("read back %v, early result %v: want both", ok, early)
	}
	if len(got.tenants["t"].DNS.Zones["t.example"].Records) == 0 {
		t.Error("the entry read back without its records")
	}
}
