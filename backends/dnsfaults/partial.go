package dnsfaults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

// partialWrite: a write sent in several parts that stops after the
// first (the run was interrupted during it, or the second part was
// refused) says how many parts were applied, so the report never calls
// a half-written zone "not applied"; an interrupted run sends no part
// after the one in flight. (Was TestBatchesReportTheAppliedParts in
// cloudflare, TestSplitPatchReportsTheAppliedParts in powerdns.)
func partialWrite(t *testing.T, p Provider) {
	for _, tc := range []struct {
		name        string
		refused     bool // the server refuses the second part
		interrupted bool // the run is interrupted as each part is sent
	}{
		{"interrupted during part 1", false, true},
		{"part 2 refused", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := p.NewZone(t)
			first, parts := z.Split()
			var want []*model.RRset
			for i := range PartRecords {
				want = append(want, rr(fmt.Sprintf("h%d.%s", i, z.Name()), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)))
			}
			var writes atomic.Int32
			api, _ := front(t, z.API(), func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
				if !p.IsWrite(r) {
					origin.ServeHTTP(w, r)
					return
				}
				n := writes.Add(1)
				if tc.interrupted {
					runstate.Interrupts(z.Run()).Interrupt()
				}
				if tc.refused && n == 2 {
					p.Refusal.write(w)
					return
				}
				origin.ServeHTTP(w, r)
			})
			sp, err := z.Plan(context.Background(), api, want...)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			_, err = z.Apply(context.Background(), sp)
			var pe *backends.PartialError
			if !errors.As(err, &pe) || pe.Applied != 1 || pe.Total != parts || !strings.HasPrefix(err.Error(), "applied part 1 of ") {
				t.Fatalf("got %v, want a *backends.PartialError of part 1 of %d applied", err, parts)
			}
			if got := errors.Is(err, backends.ErrInterrupted); got != tc.interrupted {
				t.Errorf("errors.Is(err, ErrInterrupted) = %v, want %v (%v)", got, tc.interrupted, err)
			}
			if n := writes.Load(); tc.interrupted && n != 1 {
				t.Errorf("sent %d parts, want only the one in flight", n)
			}
			// Part 1's records are served, and no other: "applied part
			// 1" is the truth.
			for i, rs := range want {
				if got := z.Served(t, rs.Name, "A"); (got == 1) != (i < first) {
					t.Errorf("%s: the server holds %d values, want 1 only for part 1's %d records", rs.Name, got, first)
				}
			}
		})
	}
}
