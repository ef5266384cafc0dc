package cloudflare

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestLimitsCheckedBeforeAnyWrite (issue 10): a value Cloudflare
// refuses (a TTL outside 1 or 60..86400, an SRV target of ".") used to
// reach the API in a later batch, after earlier batches were applied.
// The backend now refuses the whole change before its first batch.
func TestLimitsCheckedBeforeAnyWrite(t *testing.T) {
	f := newFixture(t)
	f.drv.ChunkSize = 2
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"), rr("b."+zoneName, "A", 300, "192.0.2.2"),
		rr("c."+zoneName, "A", 30, "192.0.2.3"), rr("d."+zoneName, "A", 86401, "192.0.2.4"),
		rr("_x._tcp."+zoneName, "SRV", 300, "0 0 0 ."))
	sp := f.plan(t, step)
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	if err == nil {
		t.Fatal("Apply succeeded, want the limits refused")
	}
	for _, want := range []string{"Cloudflare would refuse 3 operations, so nothing was sent:",
		"c.sjc.example.net. A: TTL 30 is outside what Cloudflare takes",
		"d.sjc.example.net. A: TTL 86401 is outside",
		`_x._tcp.sjc.example.net. SRV: SRV target "." is refused`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if n := f.fake.Count(cftest.EpBatch); n != 0 {
		t.Errorf("got %d batch requests, want none", n)
	}
	if got := zoneLines(f); len(got) != 0 {
		t.Errorf("zone changed:\n%s", strings.Join(got, "\n"))
	}
}

// TestLimitsCountInWords: the refusal counts the operations in words,
// "1 operation" or "2 operations", not "operation(s)".
func TestLimitsCountInWords(t *testing.T) {
	bad := op{kind: opPost, name: "a." + zoneName, body: body{Type: "A", TTL: 30}}
	good := op{kind: opPost, name: "b." + zoneName, body: body{Type: "A", TTL: 300}}
	for _, c := range []struct {
		ops  []op
		want string
	}{
		{[]op{good}, ""},
		{[]op{bad, good}, "Cloudflare would refuse 1 operation, so nothing was sent:"},
		{[]op{bad, good, bad}, "Cloudflare would refuse 2 operations, so nothing was sent:"},
	} {
		err := checkLimits(zoneName, c.ops)
		if got := fmt.Sprint(err); (c.want == "") != (err == nil) || !strings.Contains(got, c.want) {
			t.Errorf("checkLimits of %d operations: %v, want %q", len(c.ops), err, c.want)
		}
	}
}

// TestBatchKeepsANamesReplacement (issue 10): batches were cut with
// every delete first, so when a later batch was refused the names whose
// records it was to create stayed empty. A name's delete now travels
// with its replacement, and a refused batch leaves its names as they were.
func TestBatchKeepsANamesReplacement(t *testing.T) {
	f := newFixture(t)
	f.drv.ChunkSize = 4
	names := []string{"a", "b", "c"}
	var want []*model.RRset
	for _, n := range names {
		f.add(t, cftest.Record{Name: n + ".sjc.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")})
		want = append(want, rr(n+"."+zoneName, "CNAME", 300, "target.example.org."))
	}
	batches := 0
	f.drv.Transport = refuseBatch(2, &batches)
	sp := f.plan(t, f.step(want...))
	if _, err := f.drv.Apply(context.Background(), sp, f.run); err == nil {
		t.Fatal("Apply succeeded, want batch 2 refused")
	}
	if batches != 2 {
		t.Fatalf("sent %d batches, want 2", batches)
	}
	m := Marker("sjc")
	wantZone := []string{
		"a.sjc.example.net CNAME target.example.org " + m,
		"b.sjc.example.net CNAME target.example.org " + m,
		"c.sjc.example.net A 192.0.2.1 " + m,
	}
	if got := zoneLines(f); strings.Join(got, "\n") != strings.Join(wantZone, "\n") {
		t.Errorf("zone after a refused second batch:\n%s\nwant every name whole:\n%s", strings.Join(got, "\n"), strings.Join(wantZone, "\n"))
	}
}

// TestOverwritePatchesWhatSiteOwns (issue 10): overwriting a foreign
// record with PUT reset every field site does not send, such as its
// tags. An overwrite now patches the fields site owns.
func TestOverwritePatchesWhatSiteOwns(t *testing.T) {
	f := newFixture(t)
	f.fake.SetPaidPlan(true)
	f.add(t, cftest.Record{Name: "keys.sjc.example.net", Type: "A", Content: "192.0.2.99", TTL: 3600,
		Comment: "hand made", Tags: []string{"team:ops"}})
	f.run.Acked[plan.GateDNSOverwrite] = true
	f.apply(t, f.plan(t, f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"))))
	recs := f.fake.Records(f.zoneID)
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Content != "203.0.113.10" || r.TTL != 300 || r.Comment != Marker("sjc") {
		t.Errorf("got %s ttl %d comment %q, want 203.0.113.10 ttl 300 with the marker", r.Content, r.TTL, r.Comment)
	}
	if strings.Join(r.Tags, ",") != "team:ops" {
		t.Errorf("got tags %q, want the foreign record's [team:ops] kept", r.Tags)
	}
}
