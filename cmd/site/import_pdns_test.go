package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// The import fixtures: one zone, example.test, as a BIND master file,
// an octoDNS YamlProvider file and DNSControl's print-ir JSON, each
// holding what its tool can say of issue 28's list (per-type TTLs, a
// wildcard, a delegation with glue and DS, multi-string TXT, LOC, URI,
// HINFO, RP, CERT, SMIMEA, NAPTR, SSHFP, TLSA).
const importFixtures = "compiler/export/importzone/testdata/"

// TestImportBINDAppliesAsTheSource imports the BIND fixture, applies the
// spec to an empty PowerDNS, and checks that the zone then transfers
// (AXFR) as the file says, record for record and TTLs included, but
// for the SOA (the server's own) and the apex NS (left out by site's
// rules, said in the spec's comments); a diff after says No changes.
func TestImportBINDAppliesAsTheSource(t *testing.T) {
	file := repoFile(importFixtures + "example.test.zone")
	want := zoneFileRecords(t, file, "example.test.")
	holdsTheList(t, want, "A", "AAAA", "CNAME", "MX", "TXT", "CAA", "SRV", "NS", "DS",
		"LOC", "URI", "HINFO", "RP", "CERT", "SMIMEA", "NAPTR", "SSHFP", "TLSA")
	rt := importRoundTrip(t, pdnsEnv(t), "bind", file, "example.test", want)
	if !strings.Contains(rt.spec, `TXT: [["part one", "part two"]]`) {
		t.Errorf("the two-string TXT is not kept apart in the spec:\n%s", rt.spec)
	}
}

// TestImportOctoDNSAppliesAsTheSource is the round trip of the octoDNS
// fixture, its records read from the YAML by the test itself
// (octoDNSRecords): all the types octoDNS has of the list (no HINFO,
// RP, CERT or SMIMEA: octoDNS has no such record types).
func TestImportOctoDNSAppliesAsTheSource(t *testing.T) {
	file := repoFile(importFixtures + "example.test.yaml")
	want := octoDNSRecords(t, file, "example.test.")
	holdsTheList(t, want, "A", "AAAA", "CNAME", "MX", "TXT", "CAA", "SRV", "NS", "DS",
		"LOC", "URI", "NAPTR", "SSHFP", "TLSA")
	importRoundTrip(t, pdnsEnv(t), "octodns", file, "example.test", want)
}

// TestImportDNSControlAppliesAsTheSource is the round trip of the
// DNSControl fixture (print-ir JSON, two zones, one picked with
// --zone), its records read from the JSON by the test itself
// (printIRRecords): the types DNSControl has of the list (no HINFO,
// URI or CERT: DNSControl has no such record functions).
func TestImportDNSControlAppliesAsTheSource(t *testing.T) {
	file := repoFile(importFixtures + "zones.json")
	want := printIRRecords(t, file, "example.test.")
	holdsTheList(t, want, "A", "AAAA", "CNAME", "MX", "TXT", "CAA", "SRV", "NS", "DS",
		"LOC", "RP", "SMIMEA", "NAPTR", "SSHFP", "TLSA")
	importRoundTrip(t, pdnsEnv(t), "dnscontrol", file, "example.test", want)
}

// holdsTheList fails t unless the records (as wire) hold each of types,
// a wildcard, glue below a delegation, and one name with two TTLs.
func holdsTheList(t *testing.T, records []string, types ...string) {
	t.Helper()
	held := map[string]bool{}
	ttls := map[string]map[uint32]bool{}
	for _, w := range records {
		f := strings.Fields(w) // name, type, wire
		held[f[1]] = true
		if strings.HasPrefix(f[0], "*.") {
			held["wildcard"] = true
		}
		if f[0] == "ns1.child.example.test." && f[1] == "A" {
			held["glue"] = true
		}
		if ttls[f[0]] == nil {
			ttls[f[0]] = map[uint32]bool{}
		}
		ttls[f[0]][wireTTL(t, w)] = true
	}
	for _, ts := range ttls {
		if len(ts) > 1 {
			held["per-type TTL"] = true
		}
	}
	for _, want := range append(types, "wildcard", "glue", "per-type TTL") {
		if !held[want] {
			t.Errorf("the fixture holds no %s", want)
		}
	}
}

// wireTTL is the TTL of a record as wire gives it.
func wireTTL(t *testing.T, w string) uint32 {
	t.Helper()
	f := strings.Fields(w)
	buf, err := hex.DecodeString(f[2])
	if err != nil {
		t.Fatal(err)
	}
	rr, _, err := dns.UnpackRR(buf, 0)
	if err != nil {
		t.Fatalf("unpack %s: %v", w, err)
	}
	return rr.Header().Ttl
}

// roundTrip is what importRoundTrip leaves for a test to check further.
type roundTrip struct {
	spec, site string   // the imported tenant spec and the site.cue it ran with
	axfr       []string // the zone as transferred after apply (see transferred)
}

// importRoundTrip imports file, a source in format, for tenant lab on a
// PowerDNS provider pdns, applies it to an empty zone domain on srv,
// and checks that a diff then says No changes, that the zone transfers
// (AXFR) as want says (the source's records as the test read them, as
// wire, but for the SOA and the apex NS, which site leaves out), and
// that site export --format zone of it says what the AXFR says.
func importRoundTrip(t *testing.T, srv *pdnstest.Server, format, file, domain string, want []string) roundTrip {
	t.Helper()
	zone := domain + "."
	code, spec, errOut := siteRun(t, srv, "import", format, file, "--zone", domain, "--tenant", "lab", "--provider", "pdns")
	if code != exitOK {
		t.Fatalf("import exit %d\nstderr:\n%s", code, errOut)
	}
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{domain}, providers: []string{"pdns"}})
	tenant := writeSpec(t, site, "lab.cue", spec)
	if code, out, errOut := siteRun(t, srv, "vet", tenant); code != exitOK {
		t.Fatalf("vet exit %d\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, spec)
	}
	if code, out, errOut := siteRun(t, srv, "apply", tenant); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, spec)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", tenant); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff after apply: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	got := transferred(t, srv.DNSAddr, zone)
	if !slices.Equal(got, want) {
		t.Errorf("AXFR of %s after apply:\n got %q\nwant %q\nspec:\n%s", zone, got, want, spec)
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
		if keep(rr, zone) {
			out = append(out, wire(t, rr))
		}
	}
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// keep reports whether a source's record is one site writes: not the
// SOA, not the apex NS.
func keep(rr dns.RR, zone string) bool {
	h := rr.Header()
	return h.Rrtype != dns.TypeSOA && !(h.Rrtype == dns.TypeNS && strings.EqualFold(h.Name, zone))
}
