package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestImportBINDAppliesAsTheSource imports the BIND fixture, applies the
// spec to an empty PowerDNS, and checks that the zone then transfers
// (AXFR) as the file says, record for record and TTLs included, but
// for the SOA (the server's own) and the apex NS (left out by site's
// rules, said in the spec's comments); a diff after says No changes.
func TestImportBINDAppliesAsTheSource(t *testing.T) {
	srv := pdnsEnv(t)
	file := repoFile("compiler/export/importzone/testdata/example.test.zone")
	rt := importRoundTrip(t, srv, file, "example.test")
	if len(rt.axfr) < 20 {
		t.Fatalf("the fixture reads as %d records; it holds more", len(rt.axfr))
	}
}

// roundTrip is what importRoundTrip leaves for a test to check further.
type roundTrip struct {
	spec, site string   // the imported tenant spec and the site.cue it ran with
	axfr       []string // the zone as transferred after apply (see transferred)
}

// importRoundTrip imports the BIND file at path for tenant lab on a
// PowerDNS provider pdns, applies it to an empty zone on srv, and checks
// that a diff then says No changes, that the zone transfers (AXFR) as
// the file says, record for record and TTLs included, but for the SOA
// (the server's own) and the apex NS (left out by site's rules), and
// that site export --format zone of it says what the AXFR says.
func importRoundTrip(t *testing.T, srv *pdnstest.Server, file, domain string) roundTrip {
	t.Helper()
	zone := domain + "."
	code, spec, errOut := siteRun(t, srv, "import", "bind", file, "--tenant", "lab", "--provider", "pdns")
	if code != exitOK {
		t.Fatalf("import exit %d\nstderr:\n%s", code, errOut)
	}
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{domain}, providers: []string{"pdns"}})
	tenant := writeSpec(t, site, "lab.cue", spec)
	if code, out, errOut := siteRun(t, srv, "apply", tenant); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, spec)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", tenant); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff after apply: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	got := transferred(t, srv.DNSAddr, zone)
	if want := zoneFileRecords(t, file, zone); !slices.Equal(got, want) {
		t.Errorf("AXFR of %s after apply:\n got %q\nwant %q", zone, got, want)
	}
	code, exported, errOut := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", domain, "--tenant", "lab", "--format", "zone")
	if code != exitOK {
		t.Fatalf("export --format zone exit %d\nstderr:\n%s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "exported.zone")
	if err := os.WriteFile(path, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := zoneFileRecords(t, path, zone); !slices.Equal(again, got) {
		t.Errorf("export --format zone:\n got %q\nwant the AXFR %q\nfile:\n%s", again, got, exported)
	}
	return roundTrip{spec: spec, site: site, axfr: got}
}

// zoneFileRecords is every record of the zone file at path but its SOA
// and apex NS, read on its own by miekg/dns, as wire (see transferred).
func zoneFileRecords(t *testing.T, path, zone string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zp := dns.NewZoneParser(f, "", path)
	var out []string
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		h := rr.Header()
		if h.Rrtype == dns.TypeSOA || h.Rrtype == dns.TypeNS && strings.EqualFold(h.Name, zone) {
			continue
		}
		out = append(out, wire(t, rr))
	}
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
