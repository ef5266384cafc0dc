package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestMarkersRefusedAfterAPartSaysWhatWasWritten: a split write whose
// first part holds only DELETEs (no comments to refuse) is applied, and
// a later part is refused for its owner markers (a server that stores
// no comments). The error says which parts were written, never that
// nothing was.
func TestMarkersRefusedAfterAPartSaysWhatWasWritten(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "partialmarks.test."
	srv.CreateZone(t, zone)
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	var old []*model.RRset
	for j := range 40 {
		old = append(old, rr(fmt.Sprintf("old%d.%s", j, zone), "A", 300, "192.0.2.1"))
	}
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, zoneStep(srv, "office1", zone, old...), run), run)

	d, run = testDriver(), newRun(srv)
	d.MaxBodyBytes = 2000
	d.Attempts = 1
	run.Acked[plan.GateDNSDeleteMany] = true
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, rr("new."+zone, "A", 300, "192.0.2.2")), run)
	patches := 0
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method != http.MethodPatch || !strings.Contains(r.URL.Path, zone) {
			return 0, "", false
		}
		patches++
		return http.StatusUnprocessableEntity, `{"error":"Hosting backend does not support editing comments."}`, patches == 2
	})
	_, err := d.Apply(context.Background(), sp, run)
	var pe *backends.PartialError
	if !errors.As(err, &pe) || pe.Applied != 1 {
		t.Fatalf("Apply: got %v, want a *backends.PartialError with part 1 applied", err)
	}
	if got := srv.Query(t, "old0."+zone, "A"); len(got) != 0 {
		t.Fatalf("old0: got %q, want it deleted by part 1 (the case does not do what it says)", got)
	}
	if strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("error %q says nothing was written, but part 1 was", err)
	}
	want := fmt.Sprintf("parts 2 to %d of %d were not written (the parts before them were)", pe.Total, pe.Total)
	if pe.Total == 2 {
		want = "part 2 of 2 was not written (the parts before it were)"
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
