package powerdns

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// The benchmarks measure diff and apply of zones of 100, 1,000 and
// 10,000 A rrsets against a real PowerDNS, beside the floor: one raw GET
// and one raw PATCH of the same zone with net/http. They talk to the
// server directly (not through the counting proxy) so both sides pay the
// same. The server keeps its default 2 MiB body limit: the 10,000-rrset
// PATCH with owner markers (2,052,026 bytes) just fits in one request.
//
//	go test -tags libvirt_dlopen -run '^$' -bench . ./backends/powerdns/
//
// Metrics: ns/op (wall time), requests/op, peak-RSS-MB (the process's
// VmHWM after the run; run one benchmark per process to read it alone),
// and x-floor in BenchmarkRatio: site's time over the floor's, measured
// alternately in the same loop so that a busy machine slows both alike.

var benchSizes = []int{100, 1000, 10000}

func benchServer(b *testing.B) *pdnstest.Server {
	b.Helper()
	return pdnstest.New(b, pdnstest.Options{})
}

func benchZone(n int) string { return fmt.Sprintf("bench%d.test.", n) }

// benchWanted is n A rrsets in zone, sorted by name and type as the
// compiler hands every zone's rrsets to the driver.
func benchWanted(zone string, n int) []*model.RRset {
	out := make([]*model.RRset, n)
	for i := range n {
		out[i] = &model.RRset{Name: fmt.Sprintf("h%d.%s", i, zone), Type: "A", TTL: 300,
			Values: []string{fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}
	}
	slices.SortFunc(out, dnsplan.Compare)
	return out
}

func benchStep(srv *pdnstest.Server, zone string, rrsets []*model.RRset) *graph.Step {
	z := &model.Zone{Tenant: "bench", Name: zone, TTL: 300, RRsets: rrsets,
		Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: srv.DirectURL, Server: srv.ServerID, APIKey: model.Credential{Env: keyEnv}}}}
	return &graph.Step{ID: graph.ZoneStepID(zone), Phase: plan.PhaseDNS, Tenant: "bench", Zone: z}
}

func benchDriver() *Driver { return &Driver{} }

// rawBody is the PATCH body that writes every wanted rrset with its
// marker: what the driver's apply sends for a zone holding none of them.
func rawBody(zone string, rrsets []*model.RRset, tenant string) []byte {
	var sets []pdns.RRset
	for _, r := range rrsets {
		sets = append(sets, pdns.RRset{Name: pdns.String(r.Name), Type: pdns.RRTypePtr(pdns.RRType(r.Type)), TTL: pdns.Uint32(r.TTL),
			ChangeType: pdns.ChangeTypePtr(pdns.ChangeTypeReplace),
			Records:    []pdns.Record{{Content: pdns.String(r.Values[0]), Disabled: pdns.Bool(false)}},
			Comments:   []pdns.Comment{{Account: pdns.String(MarkerAccount), Content: pdns.String(Marker(tenant))}}})
	}
	body, _ := json.Marshal(pdns.RRsets{Sets: sets})
	return body
}

func raw(b *testing.B, srv *pdnstest.Server, method, zone string, body []byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, _ := http.NewRequest(method, srv.DirectURL+"/api/v1/servers/localhost/zones/"+zone, rd)
	req.Header.Set("X-API-Key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		b.Fatalf("%s %s: %s (%d bytes)", method, zone, resp.Status, n)
	}
}

// emptyZone (re)creates zone with nothing but its SOA.
func emptyZone(b *testing.B, srv *pdnstest.Server, zone string) {
	srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil)
	body := []byte(`{"name":"` + zone + `","kind":"Native","soa_edit_api":"DEFAULT","nameservers":[]}`)
	if status, out, err := srv.Do(context.Background(), "POST", "/zones", body); err != nil || status != 201 {
		b.Fatalf("create %s: %d %v %s", zone, status, err, out)
	}
}

// convergedZone creates zone holding every wanted rrset with the marker.
func convergedZone(b *testing.B, srv *pdnstest.Server, zone string, wanted []*model.RRset) {
	emptyZone(b, srv, zone)
	raw(b, srv, "PATCH", zone, rawBody(zone, wanted, "bench"))
}

func reportRSS(b *testing.B) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
		}
	}
}

func BenchmarkDiff(b *testing.B) {
	srv := benchServer(b)
	run := newRun(srv)
	for _, n := range benchSizes {
		zone := benchZone(n)
		wanted := benchWanted(zone, n)
		convergedZone(b, srv, zone, wanted)
		step, d := benchStep(srv, zone, wanted), benchDriver()
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			requests := 0
			for b.Loop() {
				sp, err := d.Plan(context.Background(), step, run)
				if err != nil {
					b.Fatal(err)
				}
				if len(sp.Changes) != 0 {
					b.Fatalf("converged zone planned %d changes", len(sp.Changes))
				}
				requests += int(batchOf(b, sp).client.count.n.Load())
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			reportRSS(b)
		})
	}
}

func BenchmarkFloorGET(b *testing.B) {
	srv := benchServer(b)
	for _, n := range benchSizes {
		zone := benchZone(n)
		convergedZone(b, srv, zone, benchWanted(zone, n))
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			for b.Loop() {
				raw(b, srv, "GET", zone, nil)
			}
			b.ReportMetric(1, "requests/op")
			reportRSS(b)
		})
	}
}

// BenchmarkApply is what site apply does for a zone that holds none of
// the wanted rrsets: observe (one GET), plan, one PATCH, verify over DNS
// (one AXFR). Re-creating the empty zone is outside the timer. It also
// runs a zone of 30 rrsets, the many-small-zones case (issue 13).
func BenchmarkApply(b *testing.B) {
	srv := benchServer(b)
	run := newRun(srv)
	for _, n := range append([]int{30}, benchSizes...) {
		zone := benchZone(n)
		wanted := benchWanted(zone, n)
		step, d := benchStep(srv, zone, wanted), benchDriver()
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			requests, queries := 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				emptyZone(b, srv, zone)
				b.StartTimer()
				sp, err := d.Plan(context.Background(), step, run)
				if err != nil {
					b.Fatal(err)
				}
				res, err := d.Apply(context.Background(), sp, run)
				if err != nil || len(res.Problems) > 0 {
					b.Fatalf("apply: %v %q", err, res.Problems)
				}
				requests += int(batchOf(b, sp).client.count.n.Load())
				queries += res.Queries
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(queries)/float64(b.N), "dns-queries/op")
			reportRSS(b)
		})
	}
}

// BenchmarkFloorPATCH is one raw PATCH writing the same rrsets into the
// same empty zone.
func BenchmarkFloorPATCH(b *testing.B) {
	srv := benchServer(b)
	for _, n := range benchSizes {
		zone := benchZone(n)
		body := rawBody(zone, benchWanted(zone, n), "bench")
		b.Run(fmt.Sprintf("rrsets=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				emptyZone(b, srv, zone)
				b.StartTimer()
				raw(b, srv, "PATCH", zone, body)
			}
			b.ReportMetric(1, "requests/op")
			b.ReportMetric(float64(len(body)), "body-bytes")
			reportRSS(b)
		})
	}
}

// BenchmarkRatio interleaves the floor and site's own call in every
// iteration, so both run under the same load on a shared machine, and
// reports site's time as a multiple of the floor's (x-floor): diff
// against one raw GET, apply (plan, PATCH, verify) against one raw GET
// plus one raw PATCH. The diff also reports client-x-floor, a bare
// go-powerdns Zones.Get in the same loop: the part of the diff's time
// that is the client library's GET and decoding, not site's.
func BenchmarkRatio(b *testing.B) {
	srv := benchServer(b)
	run := newRun(srv)
	for _, n := range benchSizes {
		zone := benchZone(n)
		wanted := benchWanted(zone, n)
		step, d := benchStep(srv, zone, wanted), benchDriver()
		b.Run(fmt.Sprintf("diff/rrsets=%d", n), func(b *testing.B) {
			convergedZone(b, srv, zone, wanted)
			// The client library's own GET, decoding included, is what
			// any diff that uses it pays at least: client-x-floor.
			api := pdns.New(srv.DirectURL, srv.ServerID, pdns.WithAPIKey(srv.APIKey))
			var floor, client, ours time.Duration
			for b.Loop() {
				t0 := time.Now()
				raw(b, srv, "GET", zone, nil)
				t1 := time.Now()
				if _, err := api.Zones.Get(context.Background(), zone); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if _, err := d.Plan(context.Background(), step, run); err != nil {
					b.Fatal(err)
				}
				floor, client, ours = floor+t1.Sub(t0), client+t2.Sub(t1), ours+time.Since(t2)
			}
			b.ReportMetric(float64(ours)/float64(floor), "x-floor")
			b.ReportMetric(float64(client)/float64(floor), "client-x-floor")
		})
		b.Run(fmt.Sprintf("apply/rrsets=%d", n), func(b *testing.B) {
			body := rawBody(zone, wanted, "bench")
			var floor, ours time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				emptyZone(b, srv, zone)
				b.StartTimer()
				t0 := time.Now()
				raw(b, srv, "GET", zone, nil)
				raw(b, srv, "PATCH", zone, body)
				floor += time.Since(t0)
				b.StopTimer()
				emptyZone(b, srv, zone)
				b.StartTimer()
				t1 := time.Now()
				sp, err := d.Plan(context.Background(), step, run)
				if err != nil {
					b.Fatal(err)
				}
				if res, err := d.Apply(context.Background(), sp, run); err != nil || len(res.Problems) > 0 {
					b.Fatalf("apply: %v", err)
				}
				ours += time.Since(t1)
			}
			b.ReportMetric(float64(ours)/float64(floor), "x-floor")
		})
	}
}
