package cloudflare

import (
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// TestSOASettingsConverge: a zone's soa is written to the zone's DNS
// settings with one PATCH beside the records, only the fields it sets
// change, the next plan is empty, and a zone without soa never reads
// the settings at all.
func TestSOASettingsConverge(t *testing.T) {
	f := newFixture(t)
	plain := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	f.apply(t, f.plan(t, plain))
	if n := f.fake.Count(cftest.EpSettingsGet); n != 0 {
		t.Errorf("a zone without soa read the DNS settings %d times, want 0", n)
	}

	refresh, minimum := uint32(7200), uint32(300)
	step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.SOA = &model.SOA{Mbox: "hostmaster.sjc.example.net.", Refresh: &refresh, Minimum: &minimum}
	sp := f.plan(t, step)
	if got := summary(sp.Changes); len(got) != 1 || got[0] != "update sjc.example.net./SOA" {
		t.Fatalf("got %q, want one live SOA update", got)
	}
	f.apply(t, sp)
	want := cftest.SOA{MName: "ns1.cftest.invalid", RName: "hostmaster.sjc.example.net", Refresh: 7200, Retry: 2400, Expire: 604800, MinTTL: 300, TTL: 3600}
	if got := f.fake.ZoneSOA(f.zoneID); got != want {
		t.Errorf("SOA settings: got %+v, want %+v", got, want)
	}
	if n := f.fake.Count(cftest.EpSettingsPatch); n != 1 {
		t.Errorf("got %d settings PATCHes, want 1", n)
	}
	if again := f.plan(t, step); len(again.Changes) != 0 {
		t.Errorf("not converged after the SOA update: %q", summary(again.Changes))
	}
}
