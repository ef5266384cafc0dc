package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestRequestNotes (issue 29): site diff says per provider how many
// requests the apply will send (a batch per zone with changes) and,
// past one window of its rate, how long the apply will take at least.
func TestRequestNotes(t *testing.T) { // moved from cmd/site with RequestNotes
	paced := model.Provider{Name: "paced", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081"}, Rate: &model.Rate{Requests: 20, Per: 10 * time.Second}}
	free := model.Provider{Name: "free", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8082"}}
	for _, tc := range []struct {
		name          string
		paced, freeZ  int // zones with changes
		unchangedZone bool
		want          []string
	}{
		{"within", 3, 0, true, []string{
			"provider paced: site apply will send at least 3 requests (a batch for each zone with changes), within its rate of 20 requests per 10s"}},
		{"past one window", 30, 1, false, []string{
			"provider free: site apply will send at least 1 request (a batch for each zone with changes); it has no rate",
			"provider paced: site apply will send at least 30 requests (a batch for each zone with changes), more than its rate of 20 requests per 10s allows in one window: the apply will take at least 14s"}},
		{"nothing changes", 0, 0, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tenant := &model.Tenant{Name: "a"}
			p := plan.New()
			add := func(prov model.Provider, i int, change bool) {
				z := &model.Zone{Tenant: "a", Name: fmt.Sprintf("z%d.%s.test.", i, prov.Name), TTL: 300, Provider: prov}
				tenant.Zones = append(tenant.Zones, z)
				if change {
					p.Changes = append(p.Changes, plan.Change{Step: graph.ZoneStepID(z.Name), Key: "dns/" + z.Name, Action: plan.ActionCreate})
				}
			}
			for i := range tc.paced {
				add(paced, i, true)
			}
			for i := range tc.freeZ {
				add(free, i, true)
			}
			if tc.unchangedZone {
				add(paced, 99, false)
			}
			g, err := graph.Build(&model.Spec{Tenants: []*model.Tenant{tenant}})
			if err != nil {
				t.Fatal(err)
			}
			if got := RequestNotes(g, p); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
