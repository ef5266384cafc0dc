package cloudflare

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// TestListZonesThenZoneMarks: site leftovers lists the account's zones
// with one request and reads the records of only the zone it asks
// about, by the id the listing gave (no lookup by name), finding each
// marked name and type once.
func TestListZonesThenZoneMarks(t *testing.T) {
	f := newFixture(t)
	other := f.fake.AddZone("other.example.net")
	f.add(t, cftest.Record{Name: "www." + zoneName, Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("gone")})
	f.add(t, cftest.Record{Name: "www." + zoneName, Type: "A", Content: "192.0.2.2", TTL: 300, Comment: Marker("gone")})
	f.add(t, cftest.Record{Name: "ftp." + zoneName, Type: "A", Content: "192.0.2.3", TTL: 300, Comment: "by hand"})
	if _, err := f.fake.AddRecord(other, cftest.Record{Name: "www.other.example.net", Type: "A", Content: "192.0.2.9", TTL: 300}); err != nil {
		t.Fatal(err)
	}
	f.fake.ResetCounts()
	p := model.Provider{Name: "cf", Cloudflare: &model.Cloudflare{Token: model.Credential{Env: "CLOUDFLARE_API_TOKEN"}, APIURL: f.fake.URL}}

	zones, err := f.drv.ListZones(context.Background(), p, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(zones), fmt.Sprint([]backends.ListedZone{{Name: "other.example.net.", ID: other}, {Name: zoneName, ID: f.zoneID}}); got != want {
		t.Errorf("ListZones = %s, want %s", got, want)
	}
	marks, err := f.drv.ZoneMarks(context.Background(), p, backends.ListedZone{Name: zoneName, ID: f.zoneID}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(marks), fmt.Sprint([]backends.Mark{{Name: "www." + zoneName, Type: "A", Tenant: "gone"}}); got != want {
		t.Errorf("ZoneMarks = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(f.fake.Counts()), fmt.Sprint(map[string]int{cftest.EpZones: 1, cftest.EpList: 1}); got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
}
