package compiler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/specgen"
)

// BenchmarkCacheGet reads back the cache entry of a generated tenant of
// 10,000 records, the part of a cached load the entry's layout decides
// (BenchmarkLoadCache/1x10000/cached is the whole load).
func BenchmarkCacheGet(b *testing.B) {
	dir := b.TempDir()
	if _, _, err := specgen.Write(dir, 1, 10000); err != nil {
		b.Fatal(err)
	}
	cache := OpenCache(b.TempDir())
	site, err := os.ReadFile(filepath.Join(dir, "site.cue"))
	if err != nil {
		b.Fatal(err)
	}
	keys, err := cache.keyer(site)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := LoadWith(filepath.Join(dir, "site.cue"), []string{dir}, Options{Cache: cache}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "t0000.cue")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	key := keys.key(path, data)
	b.ReportAllocs()
	for b.Loop() {
		if cache.get(key, path) == nil {
			b.Fatal("a miss")
		}
	}
}
