package dnsfaults

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// PartialReads is how a provider's zone reads come back short: the
// zone it sets up, and the ways an answer can leave some of it out.
type PartialReads struct {
	// Setup fills z with data a read that leaves some out would hide,
	// and returns what the spec wants there.
	Setup func(t *testing.T, z Zone) []*model.RRset
	// Intact checks that what Setup put in z is still there, as it was.
	Intact func(t *testing.T, z Zone)
	Cases  []PartialRead
}

// PartialRead is one way a read comes back short.
type PartialRead struct {
	Name string
	// Cut answers r itself, short, and reports whether it did; it
	// passes every other request on to origin.
	Cut func(w http.ResponseWriter, r *http.Request, origin http.Handler) bool
	// Planned: the answer looks whole, so the plan is made and the
	// write is what must refuse.
	Planned bool
	// Check checks the error of the plan (of the apply, when Planned).
	Check func(t *testing.T, z Zone, err error)
}

// partialRead: a read of the zone that is not the whole of it must not
// make a name look free or a record look gone: site either refuses to
// plan (the answer shows it is short) or refuses to write (a re-read
// before writing finds the data), sends no write, and leaves what the
// zone held as it was. (Was TestPartialListingPlansNothing in
// cloudflare and TestPartialZoneAnswerIsNoObservation in powerdns.)
func partialRead(t *testing.T, p Provider) {
	for _, tc := range p.Partial.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			z := p.NewZone(t)
			want := p.Partial.Setup(t, z)
			var writes atomic.Int32
			api, _ := front(t, z.API(), func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
				if r.Method != http.MethodGet {
					writes.Add(1)
				}
				if !tc.Cut(w, r, origin) {
					origin.ServeHTTP(w, r)
				}
			})
			sp, err := z.Plan(context.Background(), api, want...)
			switch {
			case !tc.Planned && err == nil:
				t.Fatalf("Plan succeeded, want an error: the answer was short")
			case tc.Planned && err != nil:
				t.Fatalf("Plan: %v", err)
			case tc.Planned:
				_, err = z.Apply(context.Background(), sp)
				if err == nil {
					t.Fatal("Apply succeeded, want the write refused")
				}
			}
			tc.Check(t, z, err)
			if n := writes.Load(); n != 0 {
				t.Errorf("got %d writes, want none", n)
			}
			p.Partial.Intact(t, z)
		})
	}
}
