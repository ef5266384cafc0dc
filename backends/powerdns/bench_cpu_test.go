package powerdns

import (
	"encoding/json"
	"fmt"
	"testing"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// BenchmarkPlanCPU is the client-side share of a diff without the
// server: decode the zone JSON the way the client does, observe, diff
// and fingerprint. Wall-time benchmarks against the server swing with
// the machine's load; this one shows what site itself adds to the floor.
func BenchmarkPlanCPU(b *testing.B) {
	for _, n := range benchSizes {
		zone := benchZone(n)
		wanted := benchWanted(zone, n)
		body := zoneJSON(zone, wanted, "bench")
		step := &model.Zone{Tenant: "bench", Name: zone, RRsets: wanted}
		run := backends.NewRun()
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var z pdns.Zone
				if err := json.Unmarshal(body, &z); err != nil {
					b.Fatal(err)
				}
				obs := observe(&z)
				bt := diff(graph.ZoneStep(step), obs, run)
				if len(bt.changes) != 0 {
					b.Fatalf("got %d changes", len(bt.changes))
				}
				_ = obs.fingerprint()
			}
		})
	}
}

// zoneJSON is what GET /zones/{zone} returns for a zone holding wanted,
// marked as tenant's.
func zoneJSON(zone string, wanted []*model.RRset, tenant string) []byte {
	z := pdns.Zone{Name: pdns.String(zone), Kind: pdns.ZoneKindPtr(pdns.NativeZoneKind), Serial: pdns.Uint32(2026113001)}
	for _, r := range wanted {
		z.RRsets = append(z.RRsets, pdns.RRset{Name: pdns.String(r.Name), Type: pdns.RRTypePtr(pdns.RRType(r.Type)), TTL: pdns.Uint32(r.TTL),
			Records:  []pdns.Record{{Content: pdns.String(r.Values[0]), Disabled: pdns.Bool(false)}},
			Comments: []pdns.Comment{{Account: pdns.String(MarkerAccount), Content: pdns.String(Marker(tenant)), ModifiedAt: pdns.Uint64(1796013786)}}})
	}
	body, _ := json.Marshal(z)
	return body
}
