package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestPowerDNSParentPublishesCloudflareChildDS: a tenant's PowerDNS
// zone delegates to its Cloudflare zone with dnssec: true. While
// Cloudflare's DNSSEC is disabled the parent writes no DS and says why;
// once Cloudflare reports a DS (pending: waiting for the parent), the
// same apply that reads it writes it into the parent, which serves it;
// a key Cloudflare rolls is an update of that DS. While Cloudflare turns
// DNSSEC off the DS stays (site does not know the zone is unsigned yet);
// removing dnssec: true from the child is what unpublishes it. Each
// apply converges.
func TestPowerDNSParentPublishesCloudflareChildDS(t *testing.T) {
	srv := pdnsEnv(t)
	const parent, child = "cfds.example.test.", "shop.cfds.example.test."
	cs := newColdStart(t, strings.TrimSuffix(child, "."))
	file := writeDelegation(t, srv, cs, parent, "pdns", child, "cf", "ns1.cloudflare.example.", "192.0.2.41")

	out := cfConverge(t, cs, file, "disabled")
	if want := "the DS of " + child + " is not written: Cloudflare's DNSSEC for it is disabled"; !strings.Contains(out, want) {
		t.Errorf("disabled: diff does not say %q:\n%s", want, out)
	}
	if got := srv.Query(t, child, "DS"); len(got) != 0 {
		t.Errorf("disabled: the parent serves DS %q, want none", got)
	}

	for _, tc := range []struct {
		status string
		keyTag int
		digest string
		action string
	}{
		{"pending", 2371, "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45", "+"},
		{"active", 4711, "2fa14f53e6b15cac9ac77846c7be87862c2a7e9ec0c6cea319db939317f126ed", "~"},
	} {
		cs.cf.SetDNSSEC(cs.zoneID, tc.status, tc.keyTag, tc.digest)
		code, out, errOut := cs.site(t, "diff", file)
		if want := tc.action + " dns/" + parent + "/" + child + "/DS"; !shownChange(out, tc.action, parent, child, "DS") {
			t.Errorf("%s: diff exit %d does not show %q\nstdout:\n%s\nstderr:\n%s", tc.status, code, want, out, errOut)
		}
		cfConverge(t, cs, file, tc.status)
		want := "300 " + strconv.Itoa(tc.keyTag) + " 13 2 " + strings.ToUpper(tc.digest)
		if got := srv.Query(t, child, "DS"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: the parent serves DS %q, want [%s]", tc.status, got, want)
		}
	}

	cs.cf.SetDNSSEC(cs.zoneID, "pending-disabled", 4711, "2fa14f53e6b15cac9ac77846c7be87862c2a7e9ec0c6cea319db939317f126ed")
	out = cfConverge(t, cs, file, "pending-disabled")
	if want := "Cloudflare's DNSSEC for it is pending-disabled, with no DS to publish; any DS here stays as it is"; !strings.Contains(out, want) {
		t.Errorf("pending-disabled: diff does not say %q:\n%s", want, out)
	}
	if got := srv.Query(t, child, "DS"); len(got) != 1 {
		t.Errorf("pending-disabled: the parent serves DS %q, want the one it had", got)
	}
	dropDNSSEC(t, file)
	cfConverge(t, cs, file, "dnssec removed")
	if got := srv.Query(t, child, "DS"); len(got) != 0 {
		t.Errorf("dnssec removed: the parent serves DS %q, want none", got)
	}
}
