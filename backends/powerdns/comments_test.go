package powerdns

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/hint"
)

// A server that dropped the owner markers of one zone's creation gets no
// further write in the run: another zone would only add unmarked records
// that site never deletes.
func TestNoCommentsServerGetsNoMoreWritesInTheRun(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{Backend: pdnstest.LMDB})
	d, run := testDriver(), newRun(srv)
	a := zoneStep(srv, "t1", "a.lmdb.test.", rr("www.a.lmdb.test.", "A", 300, "192.0.2.1"))
	b := zoneStep(srv, "t1", "b.lmdb.test.", rr("www.b.lmdb.test.", "A", 300, "192.0.2.2"))
	spA, spB := mustPlan(t, d, a, run), mustPlan(t, d, b, run)

	_, err := d.Apply(context.Background(), spA, run)
	if err == nil || !strings.Contains(err.Error(), "zone a.lmdb.test. was created with its records, but the server kept none of the owner markers") {
		t.Fatalf("got %v, want the markers of a.lmdb.test. reported dropped", err)
	}
	if h := hint.Of(err); h.Kind != hint.StoreComments || h.Spec != "which marks them" {
		t.Errorf("hint %+v, want %v saying the next apply marks them", h, hint.StoreComments)
	}
	_, err = d.Apply(context.Background(), spB, run)
	want := "zone b.lmdb.test.: nothing was written: its server stores no rrset comments, so no owner markers, as writing zone a.lmdb.test. found in this run (see that zone's error)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if srv.Exists(t, "b.lmdb.test.") {
		t.Errorf("b.lmdb.test. was created after the server was known to drop the markers")
	}
}

// A creation split by the body limit is an empty zone's POST, then
// PATCHes: the first PATCH is refused for its markers.
func TestNoCommentsSplitCreationSaysTheZoneIsEmpty(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{Backend: pdnstest.LMDB})
	d, run := testDriver(), newRun(srv)
	d.MaxBodyBytes = 300
	step := zoneStep(srv, "t1", "split.lmdb.test.",
		rr("a.split.lmdb.test.", "A", 300, "192.0.2.1"),
		rr("b.split.lmdb.test.", "A", 300, "192.0.2.2"),
		rr("c.split.lmdb.test.", "A", 300, "192.0.2.3"))
	_, err := d.Apply(context.Background(), mustPlan(t, d, step, run), run)
	want := `zone split.lmdb.test.: the server refused the owner markers ("Hosting backend does not support editing comments."): the zone was created empty and none of its records were written; PowerDNS at ` + srv.URL + ` (server localhost) cannot hold site's owner markers: its backend (launch=lmdb)`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want it to start %q", err, want)
	}
	if got := srv.Requests("split.lmdb.test.").PATCH; got != 1 {
		t.Errorf("got %d PATCHes, want 1: the refusal stops the parts after it", got)
	}
}

// TestUnwritten: what a refused part leaves unwritten is said as it is:
// nothing only when no part before it was written.
func TestUnwritten(t *testing.T) {
	for _, tc := range []struct {
		created     bool
		done, total int
		want        string
	}{
		{false, 0, 1, "nothing was written"},
		{false, 0, 3, "nothing was written"},
		{true, 1, 2, "the zone was created empty and none of its records were written"},
		{false, 1, 2, "part 2 of 2 was not written (the parts before it were)"},
		{false, 1, 4, "parts 2 to 4 of 4 were not written (the parts before them were)"},
		{true, 2, 4, "parts 3 to 4 of 4 were not written (the parts before them were)"},
	} {
		if got := unwritten(tc.created, tc.done, tc.total); got != tc.want {
			t.Errorf("unwritten(%v, %d, %d) = %q, want %q", tc.created, tc.done, tc.total, got, tc.want)
		}
	}
}
