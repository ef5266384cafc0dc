package plan

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkWriteText prints the plan of an apply from empty: 200 zones
// of 50 record creations, as site apply does before it writes.
func BenchmarkWriteText(b *testing.B) {
	p := &Plan{FormatVersion: FormatVersion, Fingerprints: map[string]string{}}
	for z := range 200 {
		step := fmt.Sprintf("dns/z%03d.example.test.", z)
		for r := range 50 {
			p.Changes = append(p.Changes, Change{Key: fmt.Sprintf("%s/h%03d.z%03d.example.test./A", step, r, z), Step: step, Phase: PhaseDNS,
				Tenant: "t", Action: ActionCreate, Impact: ImpactLive,
				After: map[string]any{"ttl": uint32(300), "values": []string{fmt.Sprintf("192.0.2.%d", r)}}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.WriteText(io.Discard, TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
