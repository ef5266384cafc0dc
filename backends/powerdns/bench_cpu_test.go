package powerdns

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	pdns "github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
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
		run := runstate.Start(backends.NewRun())
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

// BenchmarkDecodeCPU is the part of BenchmarkPlanCPU that is the client
// library's, not site's: decoding the zone JSON into go-powerdns's types.
// Site's own share of a diff is BenchmarkPlanCPU less this.
func BenchmarkDecodeCPU(b *testing.B) {
	for _, n := range benchSizes {
		zone := benchZone(n)
		body := zoneJSON(zone, benchWanted(zone, n), "bench")
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var z pdns.Zone
				if err := json.Unmarshal(body, &z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyCPU is the client-side share of an apply into an empty
// zone without the server: decode and observe the empty zone, diff,
// encode the PATCH body as the client does, and read and check a zone
// transfer holding every written rrset (unpacking its messages included).
func BenchmarkApplyCPU(b *testing.B) {
	for _, n := range benchSizes {
		zone := benchZone(n)
		wanted := benchWanted(zone, n)
		empty := zoneJSON(zone, nil, "bench")
		step := &model.Zone{Tenant: "bench", Name: zone, RRsets: wanted}
		run := runstate.Start(backends.NewRun())
		axfr := axfrMessages(zone, wanted)
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			for b.Loop() {
				var z pdns.Zone
				if err := json.Unmarshal(empty, &z); err != nil {
					b.Fatal(err)
				}
				bt := diff(graph.ZoneStep(step), observe(&z), run)
				if len(bt.changes) != n {
					b.Fatalf("got %d changes, want %d", len(bt.changes), n)
				}
				ops := append(append([]pdns.RRset(nil), bt.deletes...), bt.replaces...)
				for _, chunk := range split(ops, DefaultMaxBodyBytes) {
					if err := json.NewEncoder(io.Discard).Encode(&pdns.RRsets{Sets: chunk}); err != nil {
						b.Fatal(err)
					}
				}
				got := servedZone{}
				for _, wire := range axfr {
					var m dns.Msg
					if err := m.Unpack(wire); err != nil {
						b.Fatal(err)
					}
					got.add(m.Answer)
				}
				got.finish()
				for _, e := range bt.expect {
					if p := compare(e, got[rrKey{e.name, e.typ}]); p != "" {
						b.Fatal(p)
					}
				}
			}
		})
	}
}

// axfrMessages is a zone transfer of wanted as wire messages of 100
// records each.
func axfrMessages(zone string, wanted []*model.RRset) [][]byte {
	var out [][]byte
	var m *dns.Msg
	for i, r := range wanted {
		if i%100 == 0 {
			if m != nil {
				wire, _ := m.Pack()
				out = append(out, wire)
			}
			m = new(dns.Msg)
		}
		rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", r.Name, r.TTL, r.Type, r.Values[0]))
		if err != nil {
			panic(err)
		}
		m.Answer = append(m.Answer, rr)
	}
	if m != nil {
		wire, _ := m.Pack()
		out = append(out, wire)
	}
	return out
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
