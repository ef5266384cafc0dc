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
