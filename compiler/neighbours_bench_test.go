package compiler

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/specgen"
)

// BenchmarkNeighbours is issue 25's measure of what a tenant's
// neighbours cost: 100 tenants of 100 zones of 10 records each (10,000
// zones), one tenant's file loaded through a warm cache as site diff
// and site apply load it (its 99 neighbours loaded for the checks
// between tenants), against the same file alone beside the same
// site.cue. It measures the load only: the diff after it observes and
// plans that one tenant's zones, the same work either way, so the load's
// ratio (x-lone) is the upper bound of the whole diff's. Each iteration
// loads both; ms-alone and ms-neighbours are their wall times, and
// cpu-x-lone the ratio of the CPU time (user and system, of the whole
// process) they took, which a machine busy with other work moves less.
func BenchmarkNeighbours(b *testing.B) {
	const tenants, zones, records = 100, 100, 10
	pdns := specgen.PowerDNS{URL: "http://127.0.0.1:8081"}
	many, lone := b.TempDir(), b.TempDir()
	if _, err := specgen.WriteZones(many, pdns, tenants, zones, records); err != nil {
		b.Fatal(err)
	}
	const name = "t0042.cue"
	for _, f := range []string{"site.cue", name} {
		data, err := os.ReadFile(filepath.Join(many, f))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lone, f), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cache := OpenCache(b.TempDir())
	load := func(dir string) (time.Duration, time.Duration) {
		cpu := cpuTime(b)
		start := time.Now()
		spec, err := LoadWith(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, name)}, Options{Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		if len(spec.Tenants) != 1 || len(spec.Tenants[0].Zones) != zones {
			b.Fatalf("loaded %d tenants, want t0042 alone with %d zones", len(spec.Tenants), zones)
		}
		return time.Since(start), cpuTime(b) - cpu
	}
	load(many) // fills the cache: every file's entry
	load(lone)
	var alone, among, aloneCPU, amongCPU time.Duration
	b.ReportAllocs()
	for b.Loop() {
		wall, cpu := load(lone)
		alone, aloneCPU = alone+wall, aloneCPU+cpu
		wall, cpu = load(many)
		among, amongCPU = among+wall, amongCPU+cpu
	}
	n := float64(b.N)
	b.ReportMetric(alone.Seconds()*1000/n, "ms-alone")
	b.ReportMetric(among.Seconds()*1000/n, "ms-neighbours")
	b.ReportMetric(float64(among)/float64(alone), "x-lone")
	b.ReportMetric(float64(amongCPU)/float64(aloneCPU), "cpu-x-lone")
}

// cpuTime is the CPU time this process has taken, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
