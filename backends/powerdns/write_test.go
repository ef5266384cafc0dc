package powerdns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

func TestSplitKeepsOrderAndLimit(t *testing.T) {
	var ops []pdns.RRset
	for i := range 50 {
		ops = append(ops, deleteSet(rrKey{fmt.Sprintf("d%d.example.", i), "A"}))
	}
	for i := range 50 {
		ops = append(ops, pdns.RRset{Name: pdns.String(fmt.Sprintf("r%d.example.", i)), Type: pdns.RRTypePtr("A"), TTL: pdns.Uint32(300),
			ChangeType: pdns.ChangeTypePtr(pdns.ChangeTypeReplace), Records: []pdns.Record{{Content: pdns.String("192.0.2.1"), Disabled: pdns.Bool(false)}}})
	}
	tests := []struct {
		limit, chunks int
	}{
		{DefaultMaxBodyBytes, 1},
		{1000, 0}, // several; counted below
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			chunks := split(ops, tc.limit)
			if tc.chunks > 0 && len(chunks) != tc.chunks {
				t.Fatalf("got %d chunks, want %d", len(chunks), tc.chunks)
			}
			var order []pdns.RRset
			for _, c := range chunks {
				body, _ := jsonBody(c)
				if len(body) > tc.limit {
					t.Errorf("chunk of %d bytes passes the limit %d", len(body), tc.limit)
				}
				order = append(order, c...)
			}
			if len(order) != len(ops) {
				t.Fatalf("got %d rrsets, want %d", len(order), len(ops))
			}
			for i := range ops {
				if *order[i].Name != *ops[i].Name {
					t.Fatalf("rrset %d is %s, want %s: order changed", i, *order[i].Name, *ops[i].Name)
				}
			}
		})
	}
}

func TestApplySplitsOnlyPastTheBodyLimit(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "split.test."
	srv.CreateZone(t, zone)
	var want []*model.RRset
	for i := range 40 {
		want = append(want, rr(fmt.Sprintf("h%d.split.test.", i), "A", 300, "192.0.2.1"))
	}
	d, run := testDriver(), newRun(srv)
	d.MaxBodyBytes = 2000
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
	srv.ResetRequests(zone)
	mustApply(t, d, sp, run)
	got := srv.Requests(zone)
	if got.PATCH < 2 {
		t.Errorf("got %d PATCHes, want several under a 2000-byte limit", got.PATCH)
	}
	for _, n := range got.PatchBytes {
		if n > d.MaxBodyBytes {
			t.Errorf("sent a %d-byte PATCH, limit %d", n, d.MaxBodyBytes)
		}
	}
	if sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run); len(sp.Changes) != 0 {
		t.Errorf("got %q after a split apply, want converged", summary(sp.Changes))
	}
}

// jsonBody is the PATCH body the client sends for rrsets.
func jsonBody(rrsets []pdns.RRset) ([]byte, error) {
	return json.Marshal(pdns.RRsets{Sets: rrsets})
}

func TestRRsetSizeBoundsTheEncoding(t *testing.T) {
	full := pdns.RRset{Name: pdns.String("www.example."), Type: pdns.RRTypePtr("TXT"), TTL: pdns.Uint32(86400),
		ChangeType: pdns.ChangeTypePtr(pdns.ChangeTypeReplace),
		Records: []pdns.Record{{Content: pdns.String(`"a \"quoted\" \\ back"`), Disabled: pdns.Bool(false)},
			{Content: pdns.String(`"<tag> & co"`), Disabled: pdns.Bool(true), SetPTR: pdns.Bool(true)}},
		Comments: []pdns.Comment{{Account: pdns.String("ops"), Content: pdns.String("hand-made"), ModifiedAt: pdns.Uint64(1796013786)},
			{Account: pdns.String(MarkerAccount), Content: pdns.String(Marker("office1"))}}}
	tests := []struct {
		name  string
		rs    pdns.RRset
		exact bool // ASCII without line breaks: the size must be exact
	}{
		{"delete", deleteSet(rrKey{"a.example.", "A"}), true},
		{"replace with comments", full, true},
		{"adopt: comments only, records null", pdns.RRset{Name: pdns.String("a.example."), Type: pdns.RRTypePtr("A"),
			ChangeType: pdns.ChangeTypePtr(pdns.ChangeTypeReplace), Comments: full.Comments}, true},
		{"empty records", pdns.RRset{Name: pdns.String("a.example."), Records: []pdns.Record{}}, true},
		{"empty record and comment", pdns.RRset{Records: []pdns.Record{{}}, Comments: []pdns.Comment{{}}}, true},
		{"nothing set", pdns.RRset{}, true},
		{"control characters", pdns.RRset{Records: []pdns.Record{{Content: pdns.String("a\nb\tc\x01")}}}, false},
		{"unicode", pdns.RRset{Records: []pdns.Record{{Content: pdns.String("\"caf\u00e9 \u2028 \u65e5\"")}}}, false},
		{"invalid utf-8", pdns.RRset{Records: []pdns.Record{{Content: pdns.String("\xff\xfe")}}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, err := json.Marshal(tc.rs)
			if err != nil {
				t.Fatal(err)
			}
			got := rrsetSize(&tc.rs)
			if got < len(body) || (tc.exact && got != len(body)) {
				t.Errorf("got %d, want %d for %s", got, len(body), body)
			}
		})
	}
	t.Run("whole body", func(t *testing.T) {
		ops := []pdns.RRset{deleteSet(rrKey{"a.example.", "A"}), full}
		var buf bytes.Buffer
		// What the client sends: json.Encoder, with its newline.
		if err := json.NewEncoder(&buf).Encode(pdns.RRsets{Sets: ops}); err != nil {
			t.Fatal(err)
		}
		if chunks := split(ops, buf.Len()); len(chunks) != 1 {
			t.Errorf("got %d chunks at a limit of exactly the body's %d bytes, want 1", len(chunks), buf.Len())
		}
		if chunks := split(ops, buf.Len()-1); len(chunks) != 2 {
			t.Errorf("got %d chunks at a limit one byte under the body's %d, want 2", len(chunks), buf.Len())
		}
	})
}
