package powerdns

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

func TestExportThenMarkOwnedConverges(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "adopt.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "adopt.test.", Type: "NS", TTL: 3600, Records: []string{"ns1.example.org.", "ns2.example.org."}},
		pdnstest.RRset{Name: "adopt.test.", Type: "MX", TTL: 3600, Records: []string{"10 mx.example.org."}},
		pdnstest.RRset{Name: "www.adopt.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1", "192.0.2.2"}},
		pdnstest.RRset{Name: "txt.adopt.test.", Type: "TXT", TTL: 300, Records: []string{`"hello world"`}},
		pdnstest.RRset{Name: "host.adopt.test.", Type: "AFSDB", TTL: 300, Records: []string{"1 afs.adopt.test."}},
		pdnstest.RRset{Name: "their.adopt.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}, Comments: []pdnstest.Comment{marker("branch2")}},
	)
	d, run := testDriver(), newRun(srv)
	z := zoneStep(srv, "office1", zone).Zone
	snap, err := d.Export(context.Background(), z, run)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap.RRsets {
		got = append(got, r.Name+" "+r.Type+" "+strings.Join(r.Values, ","))
	}
	want := []string{
		"adopt.test. MX 10 mx.example.org.",
		"txt.adopt.test. TXT \"hello world\"",
		"www.adopt.test. A 192.0.2.1,192.0.2.2",
	}
	if !equalStrings(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	wantSkipped := []string{"adopt.test. NS", "host.adopt.test. AFSDB", "their.adopt.test. A: owned by site tenant branch2"}
	if len(snap.Skipped) != len(wantSkipped) {
		t.Fatalf("got skipped %q, want %q", snap.Skipped, wantSkipped)
	}
	for i, w := range wantSkipped {
		if !strings.HasPrefix(snap.Skipped[i], w) {
			t.Errorf("got skipped %q, want it to start with %q", snap.Skipped[i], w)
		}
	}

	z.RRsets = snap.RRsets
	n, err := d.MarkOwned(context.Background(), z, run)
	if err != nil || n != 3 {
		t.Fatalf("got %d marked, %v; want 3", n, err)
	}
	if sp := mustPlan(t, d, zoneStep(srv, "office1", zone, snap.RRsets...), run); len(sp.Changes) != 0 {
		t.Errorf("got %q after export and marking, want no changes", summary(sp.Changes))
	}
	after := srv.Get(t, zone)
	for _, k := range [][2]string{{"host.adopt.test.", "AFSDB"}, {"adopt.test.", "NS"}} {
		if r := after.Find(k[0], k[1]); r == nil || len(r.Comments) != 0 {
			t.Errorf("got %+v, want %s %s untouched", r, k[0], k[1])
		}
	}
	if r := after.Find("their.adopt.test.", "A"); r == nil || r.Comments[0].Content != Marker("branch2") {
		t.Errorf("got %+v, want branch2's A still theirs", r)
	}
}

func TestMarkOwnedRefusesAChangedZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "moved.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www.moved.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
	d, run := testDriver(), newRun(srv)
	z := zoneStep(srv, "office1", zone).Zone
	snap, err := d.Export(context.Background(), z, run)
	if err != nil {
		t.Fatal(err)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: "www.moved.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.7"}})
	z.RRsets = snap.RRsets
	srv.ResetRequests(zone)
	if _, err := d.MarkOwned(context.Background(), z, run); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Fatalf("got %v, want a refusal", err)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("got %d writes, want none", got)
	}
}

func TestExportMissingZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	z := &model.Zone{Tenant: "office1", Name: "nowhere.test.", Provider: zoneStep(srv, "office1", "nowhere.test.").Zone.Provider}
	_, err := testDriver().Export(context.Background(), z, newRun(srv))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("got %v, want a clear 'does not exist'", err)
	}
}

// TestDNSSECExportSaysSigned: export of a zone with an active key writes
// dnssec: true, so the spec it hands over wants the zone signed; an
// unsigned zone's snapshot does not.
func TestDNSSECExportSaysSigned(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "export-signed.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.12"))
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	snap, err := d.Export(context.Background(), step.Zone, run)
	if err != nil || snap.DNSSEC {
		t.Fatalf("unsigned zone: got DNSSEC %v, %v; want false", snap != nil && snap.DNSSEC, err)
	}
	step.Zone.DNSSEC = true
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if snap, err = d.Export(context.Background(), step.Zone, run); err != nil || !snap.DNSSEC {
		t.Errorf("signed zone: got DNSSEC %v, %v; want true", snap != nil && snap.DNSSEC, err)
	}
}

// TestDNSSECExportWithoutKeyStore: a server whose backend keeps no keys
// exports its zones as unsigned rather than failing.
func TestDNSSECExportWithoutKeyStore(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{NoDNSSEC: true})
	const zone = "nokeys-export.test."
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.13"))
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if snap, err := d.Export(context.Background(), step.Zone, run); err != nil || snap.DNSSEC {
		t.Errorf("got %+v, %v; want an unsigned snapshot", snap, err)
	}
}
