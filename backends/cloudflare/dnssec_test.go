package cloudflare

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// TestDNSSECNotesCloudflareStatus: a zone with dnssec: true has its
// DNSSEC details read once per plan, and the plan notes what they say:
// the DS while active or pending (unless a zone of the tenant publishes
// it), that it is off while disabled.
func TestDNSSECNotesCloudflareStatus(t *testing.T) {
	const digest = "48E939042E82C22542CB377B580DFDC52A361CEFDC72E7F9107E2B6BD9306A45"
	ds := "DS for the parent: " + zoneName + " IN DS 2371 13 2 " + strings.ToLower(digest)
	pending := "Cloudflare's DNSSEC for zone sjc.example.net. is pending: it turns active once the parent publishes that DS"
	for _, tc := range []struct {
		status   string // "" leaves the fake's default
		dsParent string // a zone of the tenant that publishes the DS: no DS note
		want     []string
	}{
		{"", "", []string{"zone sjc.example.net. says dnssec: true, but Cloudflare's DNSSEC is disabled: enable it in Cloudflare's dashboard (site does not); its DS then shows here"}},
		{"active", "", []string{ds}},
		{"pending", "", []string{ds, pending}},
		{"active", "example.net.", nil},
		{"pending", "example.net.", []string{pending}},
	} {
		t.Run(tc.status+" "+tc.dsParent, func(t *testing.T) {
			f := newFixture(t)
			if tc.status != "" {
				f.fake.SetDNSSEC(f.zoneID, tc.status, 2371, digest)
			}
			step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
			step.Zone.DNSSEC = true
			step.Zone.DSParent = tc.dsParent
			sp := f.plan(t, step)
			if !slices.Equal(sp.Notes, tc.want) {
				t.Errorf("got notes %q, want %q", sp.Notes, tc.want)
			}
			if n := f.fake.Count(cftest.EpDNSSEC); n != 1 {
				t.Errorf("got %d DNSSEC reads, want 1", n)
			}
		})
	}
}

// TestDNSSECNotReadWithoutDNSSEC: a zone without dnssec: true makes no
// DNSSEC request and plans no notes, whatever Cloudflare's status.
func TestDNSSECNotReadWithoutDNSSEC(t *testing.T) {
	f := newFixture(t)
	f.fake.SetDNSSEC(f.zoneID, "active", 2371, "ab")
	sp := f.plan(t, f.step(rr("www."+zoneName, "A", 300, "192.0.2.1")))
	if len(sp.Notes) != 0 || f.fake.Count(cftest.EpDNSSEC) != 0 {
		t.Errorf("got notes %q and %d DNSSEC reads, want none", sp.Notes, f.fake.Count(cftest.EpDNSSEC))
	}
}

// TestDNSSECExport: a zone Cloudflare signs (active or pending) exports
// with dnssec: true; one whose DNSSEC is disabled does not.
func TestDNSSECExport(t *testing.T) {
	for _, status := range []string{"", "active", "pending"} {
		f := newFixture(t)
		if status != "" {
			f.fake.SetDNSSEC(f.zoneID, status, 2371, "ab")
		}
		snap, err := f.drv.Export(context.Background(), f.step().Zone, f.run)
		if err != nil || snap.DNSSEC != (status != "") {
			t.Errorf("status %q: got DNSSEC %v, %v; want %v", status, snap != nil && snap.DNSSEC, err, status != "")
		}
	}
}
