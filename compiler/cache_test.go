package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// loadCached loads dir/... with its site.cue through cache (nil: no
// cache) and returns the model, or the diagnostics.
func loadCached(t *testing.T, dir string, cache *Cache) (*model.Spec, Diagnostics) {
	t.Helper()
	spec, err := LoadWith(filepath.Join(dir, "site.cue"), []string{dir + "/..."}, Options{Cache: cache})
	if err == nil {
		return spec, nil
	}
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("LoadWith returned %T, want Diagnostics: %v", err, err)
	}
	return nil, diags
}

// entries lists the cache's entry files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return fs.SkipAll
		}
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheMatchesEvaluation loads every fixture three times, without
// the cache, through an empty cache and through the filled one: the
// model, and the diagnostics with their positions, are the same.
func TestCacheMatchesEvaluation(t *testing.T) {
	var archives []string
	for _, pattern := range []string{"testdata/valid/*.txtar", "testdata/rules/*.txtar"} {
		m, _ := filepath.Glob(pattern)
		archives = append(archives, m...)
	}
	if len(archives) == 0 {
		t.Fatal("no fixtures")
	}
	for _, archive := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(archive), ".txtar"), func(t *testing.T) {
			dir := extract(t, archive)
			cacheDir := t.TempDir()
			cache := OpenCache(cacheDir)
			wantSpec, wantDiags := loadCached(t, dir, nil)
			for _, run := range []string{"cold", "cached"} {
				spec, diags := loadCached(t, dir, cache)
				if !reflect.DeepEqual(spec, wantSpec) {
					t.Errorf("%s: model differs from a fresh evaluation", run)
				}
				if got, want := diags.Error(), wantDiags.Error(); got != want {
					t.Errorf("%s: diagnostics\n%s\nwant\n%s", run, got, want)
				}
				if !reflect.DeepEqual(diags, wantDiags) {
					t.Errorf("%s: diagnostics differ from a fresh evaluation in a field Error does not print", run)
				}
			}
			// A site.cue in error stops Load before any tenant file.
			operatorFailed := len(wantDiags) > 0 && filepath.Base(wantDiags[0].Pos.File) == "site.cue"
			if len(entries(t, cacheDir)) == 0 && !operatorFailed {
				t.Errorf("nothing was cached")
			}
		})
	}
}

// TestCacheServesHits swaps a cached result for another one with the
// same key: the load returns what the cache holds, so the file was not
// evaluated again.
func TestCacheServesHits(t *testing.T) {
	dir := extract(t, "testdata/valid/canonical.txtar")
	cache := OpenCache(t.TempDir())
	if _, diags := loadCached(t, dir, cache); diags != nil {
		t.Fatal(diags)
	}
	site, err := os.ReadFile(filepath.Join(dir, "site.cue"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := cache.keyer(site)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.cue"))
	if len(files) == 0 {
		t.Fatal("no tenant files in the fixture")
	}
	marker := Diagnostic{Pos: model.Pos{File: files[0], Line: 7, Col: 3}, Msg: "from the cache"}
	data, _ := os.ReadFile(files[0])
	if err := cache.put(keys.key(files[0], data), &fileResult{path: files[0], pos: &positions{file: files[0]}, diags: Diagnostics{marker}}); err != nil {
		t.Fatal(err)
	}
	_, diags := loadCached(t, dir, cache)
	if !reflect.DeepEqual(diags, Diagnostics{marker}) {
		t.Errorf("got %v, want the cached %v", diags, marker)
	}
}

// TestCacheMisses changes each input of the key in turn: each change
// misses, and the load says what a fresh evaluation says.
func TestCacheMisses(t *testing.T) {
	dir := extract(t, "testdata/valid/canonical.txtar")
	cacheDir := t.TempDir()
	cache := OpenCache(cacheDir)
	loadCached(t, dir, cache)
	before := len(entries(t, cacheDir))

	tenant, _ := filepath.Glob(filepath.Join(dir, "*", "*.cue"))
	data, _ := os.ReadFile(tenant[0])
	if err := os.WriteFile(tenant[0], append(data, "\ntenants: nope: 1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := loadCached(t, dir, cache)
	_, fresh := loadCached(t, dir, nil)
	if diags == nil || diags.Error() != fresh.Error() {
		t.Errorf("after the tenant file changed: got %v, want %v", diags, fresh)
	}
	if got := len(entries(t, cacheDir)); got != before+1 {
		t.Errorf("after the tenant file changed: %d entries, want %d (one new)", got, before+1)
	}
	if err := os.WriteFile(tenant[0], data, 0o644); err != nil {
		t.Fatal(err)
	}

	site := filepath.Join(dir, "site.cue")
	siteData, _ := os.ReadFile(site)
	if err := os.WriteFile(site, append(siteData, "\n// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	before = len(entries(t, cacheDir))
	loadCached(t, dir, cache)
	if got := len(entries(t, cacheDir)); got <= before {
		t.Errorf("after site.cue changed: %d entries, want more than %d", got, before)
	}
}

// TestCacheKey: the key changes with the build, the schema, site.cue,
// the file's name and its bytes.
func TestCacheKey(t *testing.T) {
	base := func(build string, schema [32]byte, site string) *cacheKeyer {
		return &cacheKeyer{base: cacheBase(build, schema, []byte(site))}
	}
	key := base("v1 buildid:a", [32]byte{1}, "package site").key("t/a.cue", []byte("package tenants"))
	for name, other := range map[string]string{
		"build":  base("v1 buildid:b", [32]byte{1}, "package site").key("t/a.cue", []byte("package tenants")),
		"schema": base("v1 buildid:a", [32]byte{2}, "package site").key("t/a.cue", []byte("package tenants")),
		"site":   base("v1 buildid:a", [32]byte{1}, "package site\n").key("t/a.cue", []byte("package tenants")),
		"path":   base("v1 buildid:a", [32]byte{1}, "package site").key("t/b.cue", []byte("package tenants")),
		"data":   base("v1 buildid:a", [32]byte{1}, "package site").key("t/a.cue", []byte("package tenants\n")),
	} {
		if other == key {
			t.Errorf("a changed %s keeps the key %s", name, key)
		}
	}
}

// TestCacheCorruptEntry damages every entry in a different way: each is
// ignored, the load says what a fresh evaluation says, and the entry is
// written again whole.
func TestCacheCorruptEntry(t *testing.T) {
	for name, damage := range map[string]func([]byte) []byte{
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"empty":        func([]byte) []byte { return nil },
		"flipped":      func(b []byte) []byte { b[len(b)-2] ^= 1; return b },
		"no header":    func(b []byte) []byte { _, body, _ := bytes.Cut(b, []byte("\n")); return body },
		"not an entry": func([]byte) []byte { return []byte("site-cache 1 00\n{}") },
		// Whole and checksummed, but the JSON body of site-cache 2.
		"older format": func(b []byte) []byte {
			return rechecked("site-cache 2", b, func([]byte) []byte {
				old, _ := json.Marshal(map[string]any{"path": "x", "tenants": map[string]any{}, "diags": nil, "pos": ""})
				return old
			})
		},
		"truncated, checksum matching": func(b []byte) []byte {
			return rechecked(cacheFormat, b, func(body []byte) []byte { return body[:len(body)*2/3] })
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := extract(t, "testdata/rules/record_content.txtar")
			cacheDir := t.TempDir()
			cache := OpenCache(cacheDir)
			_, want := loadCached(t, dir, cache)
			good := map[string][]byte{}
			for _, e := range entries(t, cacheDir) {
				b, _ := os.ReadFile(e)
				good[e] = bytes.Clone(b)
				if err := os.WriteFile(e, damage(b), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if _, got := loadCached(t, dir, cache); got.Error() != want.Error() {
				t.Errorf("got\n%v\nwant\n%v", got, want)
			}
			for e, b := range good {
				if now, _ := os.ReadFile(e); !bytes.Equal(now, b) {
					t.Errorf("%s was not rewritten", e)
				}
			}
		})
	}
}

// TestCacheConcurrent runs loads of one spec side by side on one cache
// (run with -race): every load gives the fresh result.
func TestCacheConcurrent(t *testing.T) {
	dir := extract(t, "testdata/rules/record_content.txtar")
	_, want := loadCached(t, dir, nil)
	cacheDir := t.TempDir()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A cache each, on one directory, as separate runs have.
			if _, got := loadCached(t, dir, OpenCache(cacheDir)); got.Error() != want.Error() {
				t.Errorf("got\n%v\nwant\n%v", got, want)
			}
		}()
	}
	wg.Wait()
	for _, e := range entries(t, cacheDir) {
		if strings.HasPrefix(filepath.Base(e), ".tmp-") {
			t.Errorf("temporary file %s left behind", e)
		}
	}
}

// TestCacheNotAfterBudget: a load stopped by its budget caches nothing.
func TestCacheNotAfterBudget(t *testing.T) {
	dir := extract(t, "testdata/valid/canonical.txtar")
	cacheDir := t.TempDir()
	_, err := LoadWith(filepath.Join(dir, "site.cue"), []string{dir + "/..."}, Options{EvalMemory: 1, Cache: OpenCache(cacheDir)})
	if err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("got %v, want the memory budget's diagnostic", err)
	}
	if got := entries(t, cacheDir); len(got) > 0 {
		t.Errorf("cached after a budget passed: %v", got)
	}
}

// TestBuildIdentity: the test binary, built by go test, is named by its
// Go build ID (not by hashing all of it).
func TestBuildIdentity(t *testing.T) {
	id, err := buildIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(id, " buildid:") {
		t.Errorf("got %q, want the Go build ID", id)
	}
}

// TestPackPositionsRoundTrip: the front-coded index reads back as it
// was, keys that are prefixes of others, empty and non-ASCII keys
// included, and a damaged one is refused rather than misread.
func TestPackPositionsRoundTrip(t *testing.T) {
	at := map[string]lineCol{
		"":                                  {1, 1},
		"tenants":                           {3, 1},
		"tenants\x00t":                      {3, 10},
		"tenants\x00t\x00domain":            {4, 2},
		"tenants\x00t\x00dns\x00zones":      {5, 2},
		"tenants\x00t\x00dns\x00zonesX":     {6, 2},
		"tenants\x00ü\x00dns":               {7, 200000},
		"tenants\x00t\x00dns\x00zones\x00a": {0, 0},
	}
	b := packPositions(at)
	got, ok := unpackPositions(b)
	if !ok || !maps.Equal(got, at) {
		t.Fatalf("got %v (%v), want %v", got, ok, at)
	}
	// A shared prefix longer than the key before it cannot be read.
	if _, ok := unpackPositions([]byte{5, 1, 'x', 1, 1}); ok {
		t.Error("an index sharing 5 bytes with no key before it was read")
	}
	if _, ok := unpackPositions(b[:len(b)-1]); ok {
		t.Error("a truncated index was read")
	}
}
