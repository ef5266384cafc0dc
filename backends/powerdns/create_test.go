package powerdns

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestCreatedZoneWithoutNSSaysSo: a zone site creates gets no NS records
// from PowerDNS (the API makes none when given no nameservers), so one
// whose spec names none cannot be delegated to, and its plan says so; a
// spec that names them gets no such note, nor does a zone that exists.
func TestCreatedZoneWithoutNSSaysSo(t *testing.T) {
	srv := pdnstest.Shared(t)
	const note = "is created without NS records at its apex, so no parent can delegate to it"
	for _, tc := range []struct {
		zone     string
		withNS   bool
		wantNote bool
	}{
		{"nons.create.test.", false, true},
		{"ns.create.test.", true, false},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+tc.zone, nil) })
			step := zoneStep(srv, "office1", tc.zone, rr("www."+tc.zone, "A", 300, "192.0.2.1"))
			if tc.withNS {
				step.Zone.RRsets = append(step.Zone.RRsets, rr(tc.zone, "NS", 300, "ns1.example.net."))
			}
			d, run := testDriver(), newRun(srv)
			sp := mustPlan(t, d, step, run)
			if got := strings.Contains(strings.Join(sp.Notes, "\n"), note); got != tc.wantNote {
				t.Errorf("notes %q: note %v, want %v", sp.Notes, got, tc.wantNote)
			}
			mustApply(t, d, sp, run)
			if again := mustPlan(t, d, step, run); strings.Contains(strings.Join(again.Notes, "\n"), note) {
				t.Errorf("the zone exists now, yet the plan notes %q", again.Notes)
			}
		})
	}
}
