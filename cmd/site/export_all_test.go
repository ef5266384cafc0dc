package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler"
)

// TestExportAllPowerDNS: site export --provider NAME --all writes every
// zone of a real PowerDNS into --out, a file per zone named for it;
// run again it refuses, reading and writing nothing, until --force; and
// --format zone writes BIND master files the same way (issue 28).
func TestExportAllPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "one.example.test.", pdnstest.RRset{Name: "www.one.example.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
	srv.CreateZone(t, "two.example.test.", pdnstest.RRset{Name: "two.example.test.", Type: "MX", TTL: 300, Records: []string{"10 mx.example.org."}})
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr))
	t.Chdir(writeSpecs(t, site, map[string]string{}))
	out := filepath.Join(t.TempDir(), "zones")
	args := []string{"export", "--provider", "pdns", "--all", "--tenant", "lab", "--out", out}
	code, stdout, stderr := siteRun(t, srv, args...)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "exported 2 zones of provider pdns into "+out) {
		t.Fatalf("export --all: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for zone, want := range map[string]string{"one.example.test": `"192.0.2.1"`, "two.example.test": "mx.example.org."} {
		file := filepath.Join(out, zone, "lab.cue")
		src, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(src), want) || !strings.Contains(stderr, "wrote "+file) {
			t.Errorf("%s: %v, want it written holding %s\n%s\nstderr:\n%s", file, err, want, src, stderr)
		}
	}
	before := srv.Requests("one.example.test.").GET
	code, _, stderr = siteRun(t, srv, args...)
	if code != exitError || !strings.Contains(stderr, "holds 2 files export --all would replace") || !strings.Contains(stderr, "add --force") {
		t.Errorf("export --all over its own files: exit %d, want 1 and a refusal\nstderr:\n%s", code, stderr)
	}
	if after := srv.Requests("one.example.test.").GET; after != before {
		t.Errorf("the refused export read the zone (%d GETs, was %d)", after, before)
	}
	if code, _, stderr = siteRun(t, srv, append(args, "--force")...); code != exitOK {
		t.Errorf("export --all --force: exit %d\nstderr:\n%s", code, stderr)
	}
	zones := filepath.Join(t.TempDir(), "bind")
	code, _, stderr = siteRun(t, srv, "export", "powerdns", "--provider", "pdns", "--all", "--tenant", "lab", "--format", "zone", "--out", zones)
	if code != exitOK {
		t.Fatalf("export --all --format zone: exit %d\nstderr:\n%s", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(zones, "one.example.test.zone"))
	if err != nil || !strings.Contains(string(src), "$ORIGIN one.example.test.") || !strings.Contains(string(src), "\tIN\tSOA\t") {
		t.Errorf("one.example.test.zone: %v\n%s", err, src)
	}
	for _, bad := range [][]string{{"--zone", "one.example.test"}, {}} {
		a := append([]string{"export", "--provider", "pdns", "--all", "--tenant", "lab"}, bad...)
		if len(bad) > 0 {
			a = append(a, "--out", out)
		}
		if code, _, stderr := siteRun(t, srv, a...); code != exitError || !strings.Contains(stderr, "--all") {
			t.Errorf("site %s: exit %d, want 1 naming --all\nstderr:\n%s", strings.Join(a, " "), code, stderr)
		}
	}
}

// TestExportZoneFileIsTheWholeZone: site export --format zone of a live
// zone on a real PowerDNS holds its SOA and apex NS as the AXFR serves
// them, under a comment saying what site manages of them; and site
// import bind reads the file back to the spec site export writes of
// the zone (the comments aside).
func TestExportZoneFileIsTheWholeZone(t *testing.T) {
	srv := pdnsEnv(t)
	zone := "whole.example.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: zone, Type: "NS", TTL: 3600, Records: []string{"ns1.example.org.", "ns2.example.org."}},
		pdnstest.RRset{Name: zone, Type: "MX", TTL: 300, Records: []string{"10 mx.example.org."}},
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 600, Records: []string{"192.0.2.1", "192.0.2.2"}})
	base := []string{"export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "lab"}
	code, file, stderr := siteRun(t, srv, append(base, "--format", "zone")...)
	if code != exitOK {
		t.Fatalf("export --format zone: exit %d\nstderr:\n%s", code, stderr)
	}
	if !strings.Contains(file, "; The SOA and apex NS as the server serves them; the tenant spec holds neither.") {
		t.Errorf("the zone file does not say what site manages of the SOA and apex NS:\n%s", file)
	}
	path := filepath.Join(t.TempDir(), "whole.zone")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := apexRecords(t, path, zone), apexTransferred(t, srv.DNSAddr, zone); len(want) != 3 || !slices.Equal(got, want) {
		t.Errorf("SOA and apex NS of the zone file:\n got %q\nwant the AXFR's %q\nfile:\n%s", got, want, file)
	}
	code, exported, stderr := siteRun(t, srv, base...)
	if code != exitOK {
		t.Fatalf("export: exit %d\nstderr:\n%s", code, stderr)
	}
	code, imported, stderr := siteRun(t, srv, "import", "bind", path, "--tenant", "lab", "--provider", "powerdns")
	if code != exitOK {
		t.Fatalf("import bind of the exported zone file: exit %d\nstderr:\n%s", code, stderr)
	}
	site := siteSrc(pdnsProvider("powerdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{"whole.example.test"}, providers: []string{"powerdns"}})
	if got, want := specRecords(t, site, imported), specRecords(t, site, exported); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("import bind of the exported zone file wants\n%q\nwant what export writes:\n%q\nimported:\n%s", got, want, imported)
	}
}

// specRecords loads the tenant spec src (lab.cue) with site and lists
// what its zones want, one "zone name TTL type values" line per RRset.
func specRecords(t *testing.T, site, src string) []string {
	t.Helper()
	spec, err := compiler.LoadSourceWith(compiler.ConfigName, []byte(site), "lab.cue", []byte(src), compiler.Options{})
	if err != nil {
		t.Fatalf("load:\n%s\n%v", src, err)
	}
	var out []string
	for _, tn := range spec.Tenants {
		for _, z := range tn.Zones {
			for _, r := range z.RRsets {
				out = append(out, fmt.Sprintf("%s %s %d %s %q", z.Name, r.Name, r.TTL, r.Type, r.Values))
			}
		}
	}
	slices.Sort(out)
	return out
}

// apexRecords is the SOA and apex NS of the zone file at path, as wire.
func apexRecords(t *testing.T, path, zone string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zp := dns.NewZoneParser(f, "", path)
	var out []string
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if isApex(rr, zone) {
			out = append(out, wire(t, rr))
		}
	}
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// apexTransferred is the SOA and apex NS an AXFR of zone gives, as wire.
func apexTransferred(t *testing.T, addr, zone string) []string {
	t.Helper()
	m := new(dns.Msg)
	m.SetAxfr(zone)
	ch, err := (&dns.Transfer{}).In(m, addr)
	if err != nil {
		t.Fatalf("AXFR %s: %v", zone, err)
	}
	var out []string
	for env := range ch {
		if env.Error != nil {
			t.Fatalf("AXFR %s: %v", zone, env.Error)
		}
		for _, rr := range env.RR {
			if isApex(rr, zone) && !slices.Contains(out, wire(t, rr)) { // the SOA ends the transfer again
				out = append(out, wire(t, rr))
			}
		}
	}
	slices.Sort(out)
	return out
}

func isApex(rr dns.RR, zone string) bool {
	h := rr.Header()
	return strings.EqualFold(h.Name, zone) && (h.Rrtype == dns.TypeSOA || h.Rrtype == dns.TypeNS)
}
