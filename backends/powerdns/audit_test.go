package powerdns

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestDeleteManyThresholdEdges pins where GATE-DNS-DELETE-MANY starts
// on a real server: more than 30 % of the tenant's rrsets, in a zone
// where the tenant holds at least 10, and whatever the size all of them
// or more than half; unmarked rrsets and those of other tenants count
// for nothing.
func TestDeleteManyThresholdEdges(t *testing.T) {
	srv := pdnstest.Shared(t)
	tests := []struct {
		name                 string
		ours, foreign, other int
		keep                 int
		gated                bool
	}{
		{"4 of 9 go: under the minimum of 10 and not more than half", 9, 0, 0, 5, false},
		{"9 of 9 go: all of ours is gated under the minimum too", 9, 0, 0, 0, true},
		{"3 of 10 go: exactly 30 % is allowed", 10, 0, 0, 7, false},
		{"4 of 10 go: 40 % is gated", 10, 0, 0, 6, true},
		{"4 of 9 go beside 20 unmarked: unmarked rrsets do not count", 9, 20, 0, 5, false},
		{"4 of 9 go beside 20 of another tenant: theirs do not count", 9, 0, 20, 5, false},
		{"5 of 9 go beside 20 unmarked: more than half of ours is gated", 9, 20, 0, 4, true},
		{"10 of 10 go: everything is gated", 10, 0, 0, 0, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := fmt.Sprintf("edge%d.audit.test.", i)
			t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
			var live []pdnstest.RRset
			add := func(prefix string, n int, comments []pdnstest.Comment) {
				for j := range n {
					live = append(live, pdnstest.RRset{Name: fmt.Sprintf("%s%d.%s", prefix, j, zone), Type: "A", TTL: 300,
						Records: []string{"192.0.2.1"}, Comments: comments})
				}
			}
			add("ours", tt.ours, []pdnstest.Comment{marker("office1")})
			add("hand", tt.foreign, nil)
			add("theirs", tt.other, []pdnstest.Comment{marker("lab")})
			srv.CreateZone(t, zone, live...)
			var want []*model.RRset
			for j := range tt.keep {
				want = append(want, rr(fmt.Sprintf("ours%d.%s", j, zone), "A", 300, "192.0.2.1"))
			}
			sp := mustPlan(t, testDriver(), zoneStep(srv, "office1", zone, want...), newRun(srv))
			gated := 0
			for _, c := range sp.Changes {
				if c.Action != plan.ActionDelete || !strings.Contains(c.Key, "/ours") {
					t.Errorf("got %s %s, want only deletes of ours", c.Action, c.Key)
				}
				for _, g := range c.Gates {
					if g == plan.GateDNSDeleteMany {
						gated++
					}
				}
			}
			if got, want := len(sp.Changes), tt.ours-tt.keep; got != want {
				t.Errorf("got %d deletes, want %d", got, want)
			}
			if want := map[bool]int{true: len(sp.Changes), false: 0}[tt.gated]; gated != want {
				t.Errorf("got %d of %d deletes gated, want %d", gated, len(sp.Changes), want)
			}
		})
	}
}

// TestWantedTypeBesideOthersData: a CNAME wanted where other data sits
// (and the reverse) replaces that data only behind GATE-DNS-OVERWRITE
// when it is not ours, and never touches the rrsets of another tenant
// or of nobody at other names.
func TestWantedTypeBesideOthersData(t *testing.T) {
	srv := pdnstest.Shared(t)
	tests := []struct {
		name    string
		live    []pdnstest.RRset
		want    []*model.RRset
		changes []string
	}{
		{"CNAME over another tenant's A",
			[]pdnstest.RRset{{Name: "x.%s", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("lab")}}},
			[]*model.RRset{rr("x.%s", "CNAME", 300, "target.example.org.")},
			[]string{"create dns/%s/x.%s/CNAME overwrite GATE-DNS-OVERWRITE", "delete dns/%s/x.%s/A overwrite GATE-DNS-OVERWRITE"}},
		{"CNAME over an unmarked TXT",
			[]pdnstest.RRset{{Name: "x.%s", Type: "TXT", TTL: 300, Records: []string{`"hand made"`}}},
			[]*model.RRset{rr("x.%s", "CNAME", 300, "target.example.org.")},
			[]string{"create dns/%s/x.%s/CNAME overwrite GATE-DNS-OVERWRITE", "delete dns/%s/x.%s/TXT overwrite GATE-DNS-OVERWRITE"}},
		{"CNAME over our own A needs no gate",
			[]pdnstest.RRset{{Name: "x.%s", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("office1")}}},
			[]*model.RRset{rr("x.%s", "CNAME", 300, "target.example.org.")},
			[]string{"create dns/%s/x.%s/CNAME live", "delete dns/%s/x.%s/A live"}},
		{"A over another tenant's CNAME",
			[]pdnstest.RRset{{Name: "x.%s", Type: "CNAME", TTL: 300, Records: []string{"target.example.org."}, Comments: []pdnstest.Comment{marker("lab")}}},
			[]*model.RRset{rr("x.%s", "A", 300, "192.0.2.1")},
			[]string{"create dns/%s/x.%s/A overwrite GATE-DNS-OVERWRITE", "delete dns/%s/x.%s/CNAME overwrite GATE-DNS-OVERWRITE"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := fmt.Sprintf("beside%d.audit.test.", i)
			t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
			var live []pdnstest.RRset
			for _, l := range tt.live {
				l.Name = fmt.Sprintf(l.Name, zone)
				live = append(live, l)
			}
			srv.CreateZone(t, zone, live...)
			var want []*model.RRset
			for _, w := range tt.want {
				c := *w
				c.Name = fmt.Sprintf(c.Name, zone)
				want = append(want, &c)
			}
			run := newRun(srv)
			step := zoneStep(srv, "office1", zone, want...)
			sp := mustPlan(t, testDriver(), step, run)
			var wantChanges []string
			for _, c := range tt.changes {
				wantChanges = append(wantChanges, strings.ReplaceAll(c, "%s", zone))
			}
			if got := summary(sp.Changes); !equalStrings(got, wantChanges) {
				t.Fatalf("got changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantChanges, "\n"))
			}
			run.Acked[plan.GateDNSOverwrite] = true
			mustApply(t, testDriver(), sp, run)
			if again := mustPlan(t, testDriver(), step, run); len(again.Changes) != 0 {
				t.Errorf("not converged: %q", summary(again.Changes))
			}
		})
	}
}

// TestUnreadableAnswerPlansNothing: an answer to the zone GET that is
// not a whole zone (cut short, a proxy's HTML page, an empty body, no
// answer in time) is not an observation. Plan must fail, so that the
// rrsets it could not see are neither deleted nor overwritten.
func TestUnreadableAnswerPlansNothing(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "unread.audit.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "old." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("office1")}},
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.9"}})
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		hang   bool
	}{
		{"JSON cut short", http.StatusOK, "application/json", `{"name":"unread.audit.test.","kind":"Native","rrsets":[{"name":"old.unread.audit.test.","type":"A"`, false},
		{"a proxy's HTML page", http.StatusOK, "text/html", `<html><body>Please log in</body></html>`, false},
		{"an empty body", http.StatusOK, "application/json", ``, false},
		{"JSON null", http.StatusOK, "application/json", `null`, false},
		{"an empty JSON object", http.StatusOK, "application/json", `{}`, false},
		{"another zone", http.StatusOK, "application/json", `{"name":"other.audit.test.","kind":"Native","rrsets":[]}`, false},
		{"no answer in time", 0, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.hang {
					<-r.Context().Done()
					return
				}
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(front.Close)
			step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.10"))
			step.Zone.Provider.PowerDNS.URL = front.URL
			d := &Driver{Timeout: 200 * time.Millisecond, Attempts: 1}
			sp, err := d.Plan(context.Background(), step, newRun(srv))
			if err == nil {
				t.Fatalf("Plan succeeded with %q, want an error: the zone was not observed", summary(sp.Changes))
			}
		})
	}
}

// TestTwoSiteMarkersAreNobodysToDelete: an rrset carrying the markers
// of two tenants (written by hand; site itself keeps one) belongs to
// neither for certain. Neither may delete it, and taking it over is
// gated, whatever order the server lists the comments in.
func TestTwoSiteMarkersAreNobodysToDelete(t *testing.T) {
	srv := pdnstest.Shared(t)
	both := [][]pdnstest.Comment{
		{marker("lab"), marker("office1")},
		{marker("office1"), marker("lab")},
	}
	for i, comments := range both {
		t.Run(fmt.Sprintf("order %d", i), func(t *testing.T) {
			zone := fmt.Sprintf("twomark%d.audit.test.", i)
			t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
			srv.CreateZone(t, zone,
				pdnstest.RRset{Name: "x." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: comments})
			for _, tenant := range []string{"office1", "lab"} {
				sp := mustPlan(t, testDriver(), zoneStep(srv, tenant, zone), newRun(srv))
				if got := summary(sp.Changes); len(got) != 0 {
					t.Errorf("tenant %s plans %q for an rrset two tenants claim, want nothing", tenant, got)
				}
				sp = mustPlan(t, testDriver(), zoneStep(srv, tenant, zone, rr("x."+zone, "A", 300, "192.0.2.1")), newRun(srv))
				want := []string{"adopt dns/" + zone + "/x." + zone + "/A overwrite GATE-DNS-OVERWRITE"}
				if got := summary(sp.Changes); !equalStrings(got, want) {
					t.Errorf("tenant %s wanting it: got %q, want %q", tenant, got, want)
				}
			}
		})
	}
}

// TestRerunAfterFailedSplitPatchConverges: a change split over several
// PATCHes (the body limit) fails half-way; the zone is left with our
// deletes done and some writes missing. Planning again must converge
// without a gate: every half-done change is to our own rrsets.
func TestRerunAfterFailedSplitPatchConverges(t *testing.T) {
	srv := pdnstest.Shared(t)
	for _, failAt := range []int{2, 3} {
		t.Run(fmt.Sprintf("PATCH %d fails", failAt), func(t *testing.T) {
			zone := fmt.Sprintf("halfway%d.audit.test.", failAt)
			t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
			var live []pdnstest.RRset
			for i := range 8 {
				live = append(live, pdnstest.RRset{Name: fmt.Sprintf("old%d.%s", i, zone), Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
					Comments: []pdnstest.Comment{marker("office1")}})
			}
			live = append(live, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
				Comments: []pdnstest.Comment{marker("office1")}})
			srv.CreateZone(t, zone, live...)
			want := []*model.RRset{rr("www."+zone, "CNAME", 300, "target.example.org.")}
			for i := range 30 {
				want = append(want, rr(fmt.Sprintf("new%d.%s", i, zone), "TXT", 300, `"`+strings.Repeat("x", 40)+`"`))
			}
			for i := range 8 {
				want = append(want, rr(fmt.Sprintf("old%d.%s", i, zone), "A", 600, "192.0.2.1"))
			}
			d, run := testDriver(), newRun(srv)
			d.MaxBodyBytes = 1500
			d.Attempts = 1
			step := zoneStep(srv, "office1", zone, want...)
			sp := mustPlan(t, d, step, run)
			n := 0
			srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
				if r.Method != http.MethodPatch || !strings.Contains(r.URL.Path, zone) {
					return 0, "", false
				}
				n++
				return http.StatusInternalServerError, `{"error":"backend went away"}`, n == failAt
			})
			if _, err := d.Apply(context.Background(), sp, run); err == nil {
				t.Fatalf("Apply succeeded, want PATCH %d to fail (%d PATCHes sent)", failAt, n)
			}
			srv.FailWhen(t, func(*http.Request) (int, string, bool) { return 0, "", false })
			again := mustPlan(t, d, step, run)
			if len(again.Changes) == 0 {
				t.Fatalf("a half-applied zone plans no changes")
			}
			for _, c := range again.Changes {
				if len(c.Gates) > 0 {
					t.Errorf("re-plan after our own half-applied PATCHes needs %v for %s", c.Gates, c.Key)
				}
			}
			mustApply(t, d, again, run)
			if last := mustPlan(t, d, step, run); len(last.Changes) != 0 {
				t.Errorf("not converged: %q", summary(last.Changes))
			}
		})
	}
}
