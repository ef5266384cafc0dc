package lease

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestLeaseApplyWritesOnlyThePlan: once the lease is taken, apply adds
// the leased address to the plan it was given and otherwise writes that
// plan: a record of the tenant's changed meanwhile elsewhere in the
// zone, which a plan made again would have written back unseen, is left
// as it is, for the observation after apply to report.
func TestLeaseApplyWritesOnlyThePlan(t *testing.T) {
	lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	zone := step.Zone.Name
	marker := []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("t1")}}
	step.Zone.RRsets = append(step.Zone.RRsets, &model.RRset{Name: "other." + zone, Type: "A", TTL: 300, Values: []string{"192.0.2.5"}})
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "other." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.5"}, Comments: marker})
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: "other." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.6"}})

	if _, err := d.Apply(context.Background(), sp, run); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"www.": "300 192.0.2.7", "fixed.": "300 192.0.2.1", "other.": "300 192.0.2.6"} {
		if got := srv.Query(t, name+zone, "A"); !slices.Equal(got, []string{want}) {
			t.Errorf("%s serves %q, want %q", name+zone, got, want)
		}
	}
}

// TestLeaseRefusedWhenTheLiveRecordChanged: the leased address is
// planned against the record the plan observed at its name; when that
// has changed by the time of the write, nothing is written and the
// error says to look again.
func TestLeaseRefusedWhenTheLiveRecordChanged(t *testing.T) {
	lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	zone := step.Zone.Name
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.99"},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("t1")}}})
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.98"}})

	_, err = d.Apply(context.Background(), sp, run)
	if err == nil || !strings.Contains(err.Error(), "www."+zone+" A changed since it was observed") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v, want an error that www changed since it was observed and nothing was written", err)
	}
	if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.98"}) {
		t.Errorf("www serves %q, want what was written meanwhile", got)
	}
	if got := srv.Query(t, "fixed."+zone, "A"); len(got) != 0 {
		t.Errorf("fixed serves %q, want nothing written", got)
	}
}
