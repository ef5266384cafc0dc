package powerdns

import (
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
