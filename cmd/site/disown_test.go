package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// pdnsComments lists every rrset's comments as "name type account:content".
func pdnsComments(t *testing.T, srv *pdnstest.Server, zone string) []string {
	t.Helper()
	var out []string
	for _, rs := range srv.Get(t, zone).RRsets {
		for _, c := range rs.Comments {
			out = append(out, fmt.Sprintf("%s %s %s:%s", rs.Name, rs.Type, c.Account, c.Content))
		}
	}
	sort.Strings(out)
	return out
}

// TestDisownPowerDNS marks a zone the way export --adopt does, then
// checks that disown lists and changes nothing without the gate, takes
// only the markers of --name when given, and keeps every other comment
// and the records.
func TestDisownPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "gone.example.test."
	marker := pdnstest.Comment{Account: powerdns.MarkerAccount, Content: powerdns.Marker("old")}
	note := pdnstest.Comment{Account: "ops", Content: "ticket 42"}
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker}},
		pdnstest.RRset{Name: "mail." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.2"}, Comments: []pdnstest.Comment{note, marker}},
		pdnstest.RRset{Name: "hand." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.3"}, Comments: []pdnstest.Comment{note}},
	)
	before := pdnsComments(t, srv, zone)
	base := []string{"disown", "powerdns", "gone.example.test", "--url", srv.URL}

	code, out, errOut := siteRun(t, srv, base...)
	if code != exitGated || !strings.Contains(out, "would remove 2 owner markers:") ||
		!strings.Contains(out, "  - www.gone.example.test. A (tenant old)") || !strings.Contains(errOut, "--ack GATE-DNS-DISOWN") {
		t.Fatalf("disown without --ack: exit %d, want 3 and the markers listed\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("disown without --ack changed comments:\n%q\nwant\n%q", got, before)
	}

	code, out, errOut = siteRun(t, srv, append(base, "--name", "mail", "--ack", "GATE-DNS-DISOWN")...)
	if code != exitOK || !strings.Contains(out, "removed site's owner marker from 1 record set of zone gone.example.test.") {
		t.Fatalf("disown --name mail: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := []string{
		"hand.gone.example.test. A ops:ticket 42",
		"mail.gone.example.test. A ops:ticket 42",
		"www.gone.example.test. A site:" + powerdns.Marker("old"),
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after disown --name mail:\n got %q\nwant %q", got, want)
	}

	// The last comment of an rrset goes too (an empty comments list,
	// which the client library cannot send).
	if code, out, errOut := siteRun(t, srv, append(base, "--ack", "GATE-DNS-DISOWN")...); code != exitOK {
		t.Fatalf("disown --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(want[:2], "\n") {
		t.Errorf("after disown --ack:\n got %q\nwant %q", got, want[:2])
	}
	if r := srv.Get(t, zone).Find("www."+zone, "A"); r == nil || len(r.Records) != 1 || r.Records[0] != "192.0.2.1" {
		t.Errorf("disown changed the records: %+v", r)
	}
	code, out, _ = siteRun(t, srv, base...)
	if code != exitOK || !strings.Contains(out, "no site owner markers; nothing to do.") {
		t.Errorf("disown of an unmarked zone: exit %d\n%s", code, out)
	}
}

// TestDisownCloudflare does the same through the batch endpoint of the
// Cloudflare fake: only marker comments are emptied.
func TestDisownCloudflare(t *testing.T) {
	cs := newColdStart(t, "web.example.net")
	t.Setenv("CF_TOKEN", cfToken)
	for _, r := range []cftest.Record{
		{Name: "web.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: cloudflare.Marker("web")},
		{Name: "www.web.example.net", Type: "CNAME", Content: "web.example.net", TTL: 300, Comment: "made by hand"},
		{Name: "old.web.example.net", Type: "TXT", Content: `"x"`, TTL: 300, Comment: cloudflare.Marker("web")},
	} {
		if _, err := cs.cf.AddRecord(cs.zoneID, r); err != nil {
			t.Fatalf("AddRecord %+v: %v", r, err)
		}
	}
	base := []string{"disown", "cloudflare", "web.example.net", "--token-env", "CF_TOKEN", "--api-url", cs.cf.URL}
	if code, out, errOut := cs.site(t, base...); code != exitGated || !strings.Contains(out, "would remove 2 owner markers:\n") ||
		!strings.Contains(out, "  - old.web.example.net. TXT (tenant web)") {
		t.Fatalf("disown without --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := cs.site(t, append(base, "--name", "old.web.example.net.", "--ack", "GATE-DNS-DISOWN")...); code != exitOK ||
		!strings.Contains(out, "removing 1 owner marker:\n") || !strings.Contains(out, "removed site's owner marker from 1 record of zone web.example.net.;") {
		t.Fatalf("disown --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var got []string
	for _, r := range cs.cf.Records(cs.zoneID) {
		got = append(got, r.Name+" "+r.Type+" "+r.Content+" comment="+r.Comment)
	}
	sort.Strings(got)
	want := []string{
		`old.web.example.net TXT "x" comment=`,
		"web.example.net A 192.0.2.1 comment=" + cloudflare.Marker("web"),
		"www.web.example.net CNAME web.example.net comment=made by hand",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after disown:\n got %q\nwant %q", got, want)
	}
}
