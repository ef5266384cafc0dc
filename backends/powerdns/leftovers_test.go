package powerdns

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestListZonesThenZoneMarks: site leftovers lists a server's zones with
// one request and reads only the zone it asks about, once, finding the
// markers of account site (and not a comment of another account that
// says the same).
func TestListZonesThenZoneMarks(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{})
	marker := pdnstest.Comment{Account: MarkerAccount, Content: Marker("gone")}
	srv.CreateZone(t, "left.test.",
		pdnstest.RRset{Name: "www.left.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker}},
		pdnstest.RRset{Name: "ftp.left.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.2"},
			Comments: []pdnstest.Comment{{Account: "someone", Content: Marker("gone")}}})
	srv.CreateZone(t, "other.test.")
	d, run := testDriver(), newRun(srv)
	p := model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: srv.URL, Server: srv.ServerID, APIKey: model.Credential{Env: keyEnv}}}

	zones, err := d.ListZones(context.Background(), p, run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(zones), "[{left.test. left.test.} {other.test. other.test.}]"; got != want {
		t.Errorf("ListZones = %s, want %s", got, want)
	}
	marks, err := d.ZoneMarks(context.Background(), p, zones[0], run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(marks), fmt.Sprint([]backends.Mark{{Name: "www.left.test.", Type: "A", Tenant: "gone"}}); got != want {
		t.Errorf("ZoneMarks = %s, want %s", got, want)
	}
	for zone, want := range map[string]int{"": 1, "left.test.": 1, "other.test.": 0} {
		if got := srv.Requests(zone).GET; got != want {
			t.Errorf("GETs of %q = %d, want %d", zone, got, want)
		}
	}
}
