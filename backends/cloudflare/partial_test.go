package cloudflare

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
)

// TestBatchesReportTheAppliedParts: a write in several batches that
// stops after the first (the run was interrupted during it, or the
// second batch was refused) says how many batches were applied, and an
// interrupted run sends no batch after the one in flight.
func TestBatchesReportTheAppliedParts(t *testing.T) {
	for _, tc := range []struct {
		name        string
		refused     bool // the API refuses the second batch
		interrupted bool
	}{
		{"interrupted during batch 1", false, true},
		{"batch 2 refused", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.drv.ChunkSize = 2
			step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"), rr("b."+zoneName, "A", 300, "192.0.2.2"),
				rr("c."+zoneName, "A", 300, "192.0.2.3"), rr("d."+zoneName, "A", 300, "192.0.2.4"), rr("e."+zoneName, "A", 300, "192.0.2.5"))
			batches := 0
			refuse := 0
			if tc.refused {
				refuse = 2
			}
			next := refuseBatch(refuse, &batches)
			f.drv.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if tc.interrupted && strings.HasSuffix(r.URL.Path, "/batch") {
					f.run.Interrupt()
				}
				return next.RoundTrip(r)
			})
			sp := f.plan(t, step)
			_, err := f.drv.Apply(context.Background(), sp, f.run)
			var pe *backends.PartialError
			if !errors.As(err, &pe) || pe.Applied != 1 || pe.Total != 3 {
				t.Fatalf("got %v, want a *backends.PartialError of 1 of 3 batches", err)
			}
			if got := errors.Is(err, backends.ErrInterrupted); got != tc.interrupted {
				t.Errorf("errors.Is(err, ErrInterrupted) = %v, want %v (%v)", got, tc.interrupted, err)
			}
			if tc.interrupted && batches != 1 {
				t.Errorf("sent %d batches, want only the one in flight", batches)
			}
			if got := len(f.fake.Records(f.zoneID)); got != 2 {
				t.Errorf("got %d records, want 2 (the first batch only)", got)
			}
		})
	}
}
