package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestIgnoreValueOnPowerDNS (issue 28, item 4): DNSControl's IGNORE("@",
// "TXT", "google-site-verification=*") written as an ignore rule with a
// value. On a real PowerDNS, apply rewrites the apex TXT the spec wants
// and keeps the verification record someone else put in it, diff then
// says No changes, and when the spec drops its TXT only its own record
// goes.
func TestIgnoreValueOnPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "iv.example.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: zone, Type: "TXT", TTL: 300,
		Records:  []string{`"google-site-verification=abc"`, `"v=spf1 -all"`},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"iv.example.test"}, providers: []string{"pdns"}})
	spec := func(records string) string {
		return writeSpec(t, site, "office1.cue", `package tenants

tenants: office1: {
	domain: "iv.example.test"
	dns: zones: "iv.example.test": {
		provider: "pdns"
		ignore: [{name: "@", type: "TXT", value: "google-site-verification=*"}]
		records: {`+records+`}
	}
}
`)
	}
	file := spec(`"@": TXT: ["v=spf1 mx -all"]`)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got, want := srv.Query(t, zone, "TXT"), []string{`300 "google-site-verification=abc"`, `300 "v=spf1 mx -all"`}; !slices.Equal(got, want) {
		t.Errorf("apex TXT after apply: %q, want %q", got, want)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff after apply: exit %d, want No changes\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	file = spec(`www: A: ["192.0.2.1"]`)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply without the TXT: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got, want := srv.Query(t, zone, "TXT"), []string{`300 "google-site-verification=abc"`}; !slices.Equal(got, want) {
		t.Errorf("apex TXT after the spec dropped it: %q, want %q", got, want)
	}
}
