package lease

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestLeaseOnCloudflare: the wrapper is the same for every DNS
// provider. On the Cloudflare fake, the record waiting for its lease is
// an update where a record of ours with an old address lives (which
// survives the plan, and is the update's before, with its owner, which
// the write keeps), a create where none does; apply writes the leased
// address either way.
func TestLeaseOnCloudflare(t *testing.T) {
	for _, tc := range []struct {
		name string
		live bool // a record of ours at www with an old address
		want plan.Action
		// the change's Before and After, without the after's lease
		before, after map[string]any
	}{
		{name: "ours", live: true, want: plan.ActionUpdate,
			before: map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.99"}, "owner": "t1"},
			after:  map[string]any{"ttl": uint32(300), "owner": "t1"}},
		{name: "none", want: plan.ActionCreate, after: map[string]any{"ttl": uint32(300)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const token, zone = "cf-lease-token", "lease.example.net."
			fake := cftest.New(token)
			t.Cleanup(fake.Close)
			zoneID := fake.AddZone(zone)
			if tc.live {
				if _, err := fake.AddRecord(zoneID, cftest.Record{Name: "www.lease.example.net", Type: "A", Content: "192.0.2.99", TTL: 300, Comment: cloudflare.Marker("t1")}); err != nil {
					t.Fatal(err)
				}
			}
			ref := &model.LeaseRef{Host: "qemu:///system", VM: "web"}
			z := &model.Zone{Tenant: "t1", Name: zone, TTL: 300,
				Provider: model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Env: "CF_TOKEN"}, APIURL: fake.URL}},
				RRsets:   []*model.RRset{{Name: "www." + zone, Type: "A", TTL: 300, Lease: ref}}}
			tenant := &model.Tenant{Name: "t1", VMs: []*model.VM{{Tenant: "t1", Name: "web", Host: ref.Host, Running: true}}}
			step := &graph.Step{ID: graph.ZoneStepID(zone), Phase: plan.PhaseDNS, Tenant: "t1", TenantSpec: tenant, Zone: z}
			run := runstate.Start(backends.NewRun())
			run.Getenv = func(k string) string {
				if k == "CF_TOKEN" {
					return token
				}
				return ""
			}
			lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1}, reads: map[string]int{}}
			d := &Driver{Inner: &cloudflare.Driver{RPS: 1e6, MaxWait: 20 * time.Millisecond}, Leases: lr, Poll: time.Millisecond}

			sp, err := d.Plan(context.Background(), step, run)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{string(tc.want) + " dns/" + zone + "/www." + zone + "/A address known after the guest takes its DHCP lease (VM web); apply waits for it"}
			if got := keys(sp.Changes); !slices.Equal(got, want) {
				t.Fatalf("got plan %q, want %q", got, want)
			}
			c := sp.Changes[0]
			after := maps.Clone(c.After)
			delete(after, "lease")
			if !reflect.DeepEqual(c.Before, tc.before) || !reflect.DeepEqual(after, tc.after) {
				t.Errorf("before %#v, after %#v; want %#v, %#v (and a lease)", c.Before, c.After, tc.before, tc.after)
			}
			if _, err := d.Apply(context.Background(), sp, run); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range fake.Records(zoneID) {
				if r.Type == "A" {
					got = append(got, r.Name+" "+r.Content)
				}
			}
			if !slices.Equal(got, []string{"www.lease.example.net 192.0.2.7"}) {
				t.Errorf("A records %q, want www with the leased 192.0.2.7", got)
			}
			again, err := d.Plan(context.Background(), step, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Changes) > 0 {
				t.Errorf("after apply: got %q, want no changes", keys(again.Changes))
			}
		})
	}
}
