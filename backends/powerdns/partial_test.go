package powerdns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// rewriteProxy puts a proxy in front of srv that passes every whole-zone
// answer (a GET of a zone without ?rrset_name) through edit before site
// reads it; other requests, the filtered re-read included, pass as they
// are. It returns the proxy's URL.
func rewriteProxy(t *testing.T, srv *pdnstest.Server, edit func(z map[string]any)) string {
	t.Helper()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		r := resp.Request
		if r.Method != "GET" || !strings.Contains(r.URL.Path, "/zones/") || r.URL.Query().Has("rrset_name") || resp.StatusCode != 200 {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var z map[string]any
		if err := json.Unmarshal(body, &z); err != nil {
			return err
		}
		edit(z)
		body, err = json.Marshal(z)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	ts := httptest.NewServer(rp)
	t.Cleanup(ts.Close)
	return ts.URL
}

// keepRRsets drops the rrsets of a zone answer for which keep is false.
func keepRRsets(keep func(rs map[string]any) bool) func(map[string]any) {
	return func(z map[string]any) {
		var out []any
		for _, rs := range z["rrsets"].([]any) {
			if keep(rs.(map[string]any)) {
				out = append(out, rs)
			}
		}
		z["rrsets"] = out
	}
}

// TestPartialZoneAnswerIsNoObservation: a 200 that is not the whole
// zone must not make a foreign name look free. The zone holds an
// admin's A, with a comment, at the name the spec wants with other
// data; read in full that is an overwrite behind GATE-DNS-OVERWRITE.
// Read partially, site must either refuse to plan (the answer shows it
// is incomplete) or refuse to write (the re-read of the name before the
// PATCH finds the data): never replace it as a plain create.
func TestPartialZoneAnswerIsNoObservation(t *testing.T) {
	srv := pdnstest.Shared(t)
	tests := []struct {
		name string
		edit func(z map[string]any)
		// planned: the answer looks complete, so the plan is made and
		// the write is what must refuse.
		planned bool
	}{
		{name: "empty rrsets list", edit: func(z map[string]any) { z["rrsets"] = []any{} }},
		{name: "SOA left out", edit: keepRRsets(func(rs map[string]any) bool { return rs["type"] != "SOA" })},
		{name: "SOA serial contradicts the zone's", edit: func(z map[string]any) { z["serial"] = 7 }},
		{name: "an rrset of another zone", edit: func(z map[string]any) {
			z["rrsets"] = append(z["rrsets"].([]any), map[string]any{"name": "www.other.test.", "type": "A", "ttl": 300,
				"records": []any{map[string]any{"content": "192.0.2.7", "disabled": false}}, "comments": []any{}})
		}},
		{name: "apex NS left out", edit: keepRRsets(func(rs map[string]any) bool { return rs["type"] != "NS" })},
		{name: "foreign rrsets left out, SOA and NS kept", planned: true,
			edit: keepRRsets(func(rs map[string]any) bool { return rs["type"] == "SOA" || rs["type"] == "NS" })},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := fmt.Sprintf("partial%d.test.", i)
			x := "x." + zone
			admin := pdnstest.Comment{Account: "alice", Content: "mail relay, ask alice"}
			srv.CreateZone(t, zone, pdnstest.RRset{Name: zone, Type: "NS", TTL: 3600, Records: []string{"ns1.example.net."}},
				pdnstest.RRset{Name: x, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{admin}})
			step := zoneStep(srv, "office1", zone, rr(x, "A", 300, "192.0.2.2"))
			step.Zone.Provider.PowerDNS.URL = rewriteProxy(t, srv, tt.edit)
			d, run := testDriver(), newRun(srv)
			srv.ResetRequests(zone)
			sp, err := d.Plan(context.Background(), step, run)
			switch {
			case !tt.planned && !errors.Is(err, ErrIncomplete):
				t.Fatalf("plan: got %v (changes %q), want the answer refused as incomplete", err, planSummary(sp))
			case tt.planned && err != nil:
				t.Fatalf("plan: %v", err)
			case tt.planned:
				_, err = d.Apply(context.Background(), sp, run)
				var ae *APIError
				if !errors.As(err, &ae) || ae.Class != backends.ClassConflict || !strings.Contains(err.Error(), x) {
					t.Fatalf("apply: got %v, want a conflict naming %s", err, x)
				}
			}
			if got := srv.Requests(zone).Writes(); got != 0 {
				t.Errorf("got %d writes, want none", got)
			}
			live := srv.Get(t, zone).Find(x, "A")
			if live == nil || len(live.Records) != 1 || live.Records[0] != "192.0.2.1" || len(live.Comments) != 1 || live.Comments[0] != admin {
				t.Errorf("got %+v, want the admin's A and comment untouched", live)
			}
		})
	}
}

// TestCreateRefusedWhereDataAppeared: a name free when observed that
// another writer fills before the apply is not replaced in silence,
// whether the creates are re-read one by one or, past recheckEach, by
// one read of the whole zone.
func TestCreateRefusedWhereDataAppeared(t *testing.T) {
	srv := pdnstest.Shared(t)
	for _, creates := range []int{1, recheckEach + 4} {
		t.Run(fmt.Sprintf("%d creates", creates), func(t *testing.T) {
			zone := fmt.Sprintf("appeared%d.test.", creates)
			srv.CreateZone(t, zone)
			var want []*model.RRset
			for i := range creates {
				want = append(want, rr(fmt.Sprintf("h%d.%s", i, zone), "A", 300, "192.0.2.2"))
			}
			d, run := testDriver(), newRun(srv)
			sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
			last := want[creates-1].Name
			srv.Replace(t, zone, pdnstest.RRset{Name: last, Type: "A", TTL: 60, Records: []string{"192.0.2.9"}})
			srv.ResetRequests(zone)
			_, err := d.Apply(context.Background(), sp, run)
			var ae *APIError
			if !errors.As(err, &ae) || ae.Class != backends.ClassConflict || !strings.Contains(err.Error(), last) {
				t.Fatalf("apply: got %v, want a conflict naming %s", err, last)
			}
			if got := srv.Requests(zone).Writes(); got != 0 {
				t.Errorf("got %d writes, want none", got)
			}
			if got := srv.Query(t, last, "A"); !equalStrings(got, []string{"60 192.0.2.9"}) {
				t.Errorf("got %q, want the other writer's A still served", got)
			}
		})
	}
}

func planSummary(sp *backends.StepPlan) []string {
	if sp == nil {
		return nil
	}
	return summary(sp.Changes)
}

// TestExportRefusesPartialAnswer: an export of an incomplete answer
// would leave records out of the tenant file it writes.
func TestExportRefusesPartialAnswer(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "partialexport.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "x." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
	z := zoneStep(srv, "office1", zone).Zone
	z.Provider.PowerDNS.URL = rewriteProxy(t, srv, func(z map[string]any) { z["rrsets"] = []any{} })
	snap, err := testDriver().Export(context.Background(), z, newRun(srv))
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("got %v (snapshot %+v), want the answer refused as incomplete", err, snap)
	}
}
