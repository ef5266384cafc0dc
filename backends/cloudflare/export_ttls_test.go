package cloudflare

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// TestExportKeepsATTLPerType (issue 28): a name whose types have
// different TTLs is exported, each RRset with its own TTL (the spec
// says it with ttls), where Cloudflare export left the whole name out;
// only an RRset whose records disagree on the TTL, which DNS cannot
// serve, is left out, naming its type.
func TestExportKeepsATTLPerType(t *testing.T) {
	f := newFixture(t)
	u16 := func(n uint16) *uint16 { return &n }
	for _, r := range []cftest.Record{
		{Name: "mixed." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.10", TTL: 300},
		{Name: "mixed." + strings.TrimSuffix(zoneName, "."), Type: "TXT", Content: `"x"`, TTL: 600},
		{Name: "mixed." + strings.TrimSuffix(zoneName, "."), Type: "MX", Content: "mx.example.org", Priority: u16(10), TTL: 3600},
		{Name: "split." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.11", TTL: 300},
		{Name: "split." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.12", TTL: 600},
	} {
		f.add(t, r)
	}
	snap, err := f.drv.Export(context.Background(), f.step().Zone, f.run)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rs := range snap.RRsets {
		got = append(got, fmt.Sprintf("%s %s %d", rs.Name, rs.Type, rs.TTL))
	}
	want := []string{"mixed." + zoneName + " A 300", "mixed." + zoneName + " MX 3600", "mixed." + zoneName + " TXT 600"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("exported %q, want %q", got, want)
	}
	if !slices.ContainsFunc(snap.Skipped, func(s string) bool {
		return strings.HasPrefix(s, "split."+zoneName+" A: its records have 2 different TTLs")
	}) {
		t.Errorf("skipped %q, want split's A named", snap.Skipped)
	}
}
