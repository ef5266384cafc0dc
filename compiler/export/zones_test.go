package export

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/model"
)

// TestProblemsListsEveryRRset checks that Problems names every RRset the
// language cannot say, each with the RRset it clashes with, where
// Render stops at the first: an importer lists them all at once.
func TestProblemsListsEveryRRset(t *testing.T) {
	z := Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: pdnsProvider, RRsets: []model.RRset{
		rr("www.sjc.example.net.", "A", 300, "192.0.2.1"),
		rr("www.sjc.example.net.", "TXT", 60, `"x"`),             // 1: another TTL than 0, which ttls says
		rr("a.sjc.example.net.", "AFSDB", 300, "1 afs.example."), // 2: no such type
		rr("www.example.org.", "A", 300, "192.0.2.1"),            // 3: outside
		rr("www.sjc.example.net.", "A", 300, "192.0.2.2"),        // 4: A twice
		rr("ok.sjc.example.net.", "A", 300, "192.0.2.3"),         // fine
		rr("www.sjc.example.net.", "MX", 3600, "10 mx.example."), // another TTL than 0, which ttls says
	}}
	want := []struct {
		kind         ProblemKind
		rrset, clash int
		text         string
	}{
		{Unsayable, 2, -1, "no AFSDB records"},
		{Outside, 3, -1, "lies outside zone sjc.example.net."},
		{Twice, 4, 0, "two A RRsets at www.sjc.example.net."},
	}
	got := Problems(z)
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || g.RRset != w.rrset || g.Clash != w.clash || !strings.Contains(g.Err.Error(), w.text) {
			t.Errorf("problem %d: got {%d %d %d %q}, want {%d %d %d containing %q}", i, g.Kind, g.RRset, g.Clash, g.Err, w.kind, w.rrset, w.clash, w.text)
		}
	}
	if _, err := Render(z); err == nil || !strings.Contains(err.Error(), "no AFSDB records") {
		t.Errorf("Render: got %v, want the first problem with export's advice", err)
	}
}

// TestRenderZones pins one tenant file holding two zones, each with the
// notes an import writes above it; a zone or tenant given twice is
// refused.
func TestRenderZones(t *testing.T) {
	zs := []Zone{
		{Tenant: "lab", Zone: "lab.example.org.", Provider: pdnsProvider,
			Notes:  []string{"Imported from zones.json.", "Left out: the SOA."},
			RRsets: []model.RRset{rr("www.lab.example.org.", "A", 300, "192.0.2.1")}},
		{Tenant: "lab", Zone: "lab.example.net.", Provider: pdnsProvider,
			RRsets: []model.RRset{rr("lab.example.net.", "TXT", 60, `"hello"`)}},
	}
	got, err := RenderZones(zs)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "zones.golden"), got)
	if _, err := RenderZones([]Zone{zs[0], zs[0]}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("one zone twice: got %v, want an error", err)
	}
	other := zs[1]
	other.Tenant = "web"
	if _, err := RenderZones([]Zone{zs[0], other}); err == nil || !strings.Contains(err.Error(), "one tenant") {
		t.Errorf("two tenants: got %v, want an error", err)
	}
}

// TestRenderZoneFile pins the zone-file form of the render cases, and
// checks that it refuses what Render refuses, with the same error.
func TestRenderZoneFile(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderZoneFile(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".zone.golden"), got)
		})
	}
	bad := Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: pdnsProvider, RRsets: []model.RRset{
		rr("www.sjc.example.net.", "A", 300, "192.0.2.1"), rr("www.sjc.example.net.", "AFSDB", 60, "1 afs.example.")}}
	_, want := Render(bad)
	if _, err := RenderZoneFile(bad); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("got %v, want Render's error %v", err, want)
	}
}
