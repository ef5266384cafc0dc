package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"

	"github.com/site-tools/site/compiler/specgen"
	"github.com/site-tools/site/schema"
)

// BenchmarkLoad loads generated tenants, one file each, as site vet
// does; cmd/sitebench compares the whole command with cue vet.
func BenchmarkLoad(b *testing.B) {
	for _, size := range []struct{ tenants, records int }{{1, 1000}, {1, 50000}, {100, 50}, {1000, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size.tenants, size.records), func(b *testing.B) {
			dir := b.TempDir()
			_, bytes, err := specgen.Write(dir, size.tenants, size.records)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(bytes)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(filepath.Join(dir, "site.cue"), []string{dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadCache loads generated tenants without the cache, through
// an empty cache (evaluating and writing every file) and through a full
// one (as site vet of unchanged files does).
func BenchmarkLoadCache(b *testing.B) {
	for _, size := range []struct{ tenants, records int }{{1, 10000}, {1000, 50}} {
		dir := b.TempDir()
		_, bytes, err := specgen.Write(dir, size.tenants, size.records)
		if err != nil {
			b.Fatal(err)
		}
		load := func(b *testing.B, cache *Cache) {
			if _, err := LoadWith(filepath.Join(dir, "site.cue"), []string{dir}, Options{Cache: cache}); err != nil {
				b.Fatal(err)
			}
		}
		for _, run := range []string{"none", "cold", "cached"} {
			b.Run(fmt.Sprintf("%dx%d/%s", size.tenants, size.records, run), func(b *testing.B) {
				b.SetBytes(bytes)
				b.ReportAllocs()
				var cache *Cache
				if run == "cached" {
					cache = OpenCache(b.TempDir())
					load(b, cache)
				}
				for b.Loop() {
					if run == "cold" {
						b.StopTimer()
						cache = OpenCache(b.TempDir())
						b.StartTimer()
					}
					load(b, cache)
				}
			})
		}
	}
}

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
		if cache.get(key, path, nil) == nil {
			b.Fatal("a miss")
		}
	}
}

// doublingSpec is a tenant whose hidden field _aN holds 2^n copies of
// a struct, shared by reference, and a second tenant that refers to it.
// Evaluated as one tree it costs CUE next to nothing; unified with
// #Tenant tenant by tenant it once cost site 2^n (past 4 GB at n=30).
func doublingSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("package tenants\n\ntenants: t1: {\n\tdomain: \"t1.example.test\"\n\t_a0: {x: 1}\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\t_a%d: {a: _a%d, b: _a%d}\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "}\n\ntenants: t2: {domain: \"t2.example.test\", _b: tenants.t1._a%d}\n", n)
	return []byte(b.String())
}

// doublingSite grants the tenants of doublingSpec.
const doublingSite = `package site

tenants: {t1: domains: ["t1.example.test"], t2: domains: ["t2.example.test"]}
`

// BenchmarkDoubling compares site's evaluation of doublingSpec with
// CUE's own (the schema and the file as one instance, validated as cue
// vet -c does): site must cost no more.
func BenchmarkDoubling(b *testing.B) {
	src := doublingSpec(30)
	b.Run("site", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// Two tenants in one file is itself an error now; the
			// evaluation before that verdict is what is measured.
			var diags Diagnostics
			if _, err := LoadSource("site.cue", []byte(doublingSite), "t1.cue", src); err != nil && !errors.As(err, &diags) {
				b.Fatal(err)
			}
		}
	})
	b.Run("cue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			inst := build.NewContext().NewInstance("tenants", nil)
			names, err := fs.Glob(schema.FS, "*.cue")
			if err != nil {
				b.Fatal(err)
			}
			for _, name := range names {
				data, err := fs.ReadFile(schema.FS, name)
				if err != nil {
					b.Fatal(err)
				}
				if err := inst.AddFile("schema/"+name, data); err != nil {
					b.Fatal(err)
				}
			}
			if err := inst.AddFile("doubling.cue", src); err != nil {
				b.Fatal(err)
			}
			v := cuecontext.New().BuildInstance(inst)
			if err := v.Validate(cue.Concrete(true), cue.Final(), cue.Hidden(true)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoadZones loads the same number of zones written as one
// tenant's file and as one file per tenant (issue 13: a diff of 200
// zones from one file must need no more memory than from 200 files),
// and reports the peak of the live heap while loading, sampled, as
// peak-heap-MB.
func BenchmarkLoadZones(b *testing.B) {
	const zones, records = 200, 50
	one, many := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(one, "site.cue"), specgen.SiteForZones(specgen.PowerDNS{URL: "http://127.0.0.1:8081"}, 0, zones), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, "t0000.cue"), specgen.Zones(0, zones, records), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, _, err := specgen.Write(many, zones, records); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, dir string }{{"one-file", one}, {"files", many}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := samplePeakHeap(&peak)
				if _, err := Load(filepath.Join(c.dir, "site.cue"), []string{c.dir}); err != nil {
					b.Fatal(err)
				}
				stop()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// samplePeakHeap raises *peak to the largest heap in use (objects, live
// or not yet collected) seen until stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}
