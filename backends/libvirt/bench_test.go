//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"testing"
)

// BenchmarkDiffDomains plans n converged domains on one test-driver host
// and reports the libvirt calls per domain, which must stay flat as n
// grows (one host observation per run, a fixed number of calls per
// domain).
func BenchmarkDiffDomains(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("domains=%d", n), func(b *testing.B) {
			r, vms := convergedDomains(b, n)
			g := r.graph(vms, nil)
			obs, _ := r.diff(g) // connect outside the measurement
			if obs.Plan.HasChanges() || len(obs.Plan.Blocked) > 0 {
				b.Fatalf("fixture is not converged: %q %+v", lines(obs.Plan), obs.Plan.Blocked)
			}
			start := r.d.Calls()
			b.ResetTimer()
			for b.Loop() {
				r.diff(g)
			}
			b.StopTimer()
			b.ReportMetric(float64(r.d.Calls()-start)/float64(b.N)/float64(n), "calls/domain")
			b.ReportMetric(float64(r.d.Calls()-start)/float64(b.N), "calls/diff")
		})
	}
}
