package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// exportShapes is every record shape site manages, in the spellings a
// live PowerDNS holds them, several per type where the language has
// more than one way to say it.
var exportShapes = []pdnstest.RRset{
	{Name: "shapes.example.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1", "192.0.2.10"}},
	{Name: "shapes.example.test.", Type: "MX", TTL: 300, Records: []string{"10 mx.shapes.example.test.", "20 mx2.example.org."}},
	{Name: "shapes.example.test.", Type: "CAA", TTL: 300, Records: []string{`0 issue "letsencrypt.org"`, `128 iodef "mailto:sec@example.test"`}},
	{Name: "shapes.example.test.", Type: "TXT", TTL: 300, Records: []string{`"v=spf1 mx -all"`, `"part one" "part two"`}},
	{Name: "v6.shapes.example.test.", Type: "AAAA", TTL: 300, Records: []string{"2001:db8::1"}},
	{Name: "alias.shapes.example.test.", Type: "CNAME", TTL: 300, Records: []string{"shapes.example.test."}},
	{Name: "sub.shapes.example.test.", Type: "NS", TTL: 300, Records: []string{"ns1.example.org.", "ns2.example.org."}},
	{Name: "_sip._tcp.shapes.example.test.", Type: "SRV", TTL: 300, Records: []string{"10 5 5060 sip.shapes.example.test.", "0 0 0 ."}},
	{Name: "nomail.shapes.example.test.", Type: "MX", TTL: 300, Records: []string{"0 ."}},
	{Name: "*.apps.shapes.example.test.", Type: "A", TTL: 60, Records: []string{"192.0.2.80"}},
	{Name: "long.shapes.example.test.", Type: "TXT", TTL: 300, Records: []string{`"` + strings.Repeat("k", 255) + `" "kkk"`}},
	{Name: "split.shapes.example.test.", Type: "TXT", TTL: 300, Records: []string{`"` + strings.Repeat("s", 200) + `" "` + strings.Repeat("t", 100) + `"`}},
	{Name: "odd.shapes.example.test.", Type: "TXT", TTL: 300, Records: []string{`""`, `"say \"hi\" \\ there"`, `"caf\195\169 tab\009"`, `"" "x" ""`}},
	// The types of issue 12, each as PowerDNS holds it, with the
	// spellings it keeps as given (upper-case hex, unsorted SvcParams).
	{Name: "7.2.shapes.example.test.", Type: "PTR", TTL: 300, Records: []string{"host.example.net."}},
	{Name: "ssh.shapes.example.test.", Type: "SSHFP", TTL: 300, Records: []string{"4 2 " + strings.Repeat("AB", 32), "1 1 " + strings.Repeat("cd", 20)}},
	{Name: "_443._tcp.shapes.example.test.", Type: "TLSA", TTL: 300, Records: []string{"3 1 1 " + strings.Repeat("ab", 32), "2 0 2 " + strings.Repeat("EF", 64)}},
	{Name: "shapes.example.test.", Type: "HTTPS", TTL: 300, Records: []string{`1 . alpn=h2,h3 port=443`, `2 svc.example.net. port=8443 ipv4hint=192.0.2.1`}},
	{Name: "_dns.shapes.example.test.", Type: "SVCB", TTL: 300, Records: []string{"0 svc.example.net.", `1 . alpn=dot port=853`}},
	{Name: "sip.shapes.example.test.", Type: "NAPTR", TTL: 300, Records: []string{`100 10 "S" "SIP+D2U" "" _sip._udp.example.net.`, `102 10 "U" "E2U+email" "!^.*$!mailto:info@example.com!" .`}},
	{Name: "child.shapes.example.test.", Type: "NS", TTL: 300, Records: []string{"ns1.example.net."}},
	{Name: "child.shapes.example.test.", Type: "DS", TTL: 300, Records: []string{"2371 13 2 " + strings.Repeat("ab", 32), "1501 14 4 " + strings.Repeat("CD", 48)}},
	{Name: "old.shapes.example.test.", Type: "DNAME", TTL: 300, Records: []string{"new.example.net."}},
	{Name: "pgp.shapes.example.test.", Type: "OPENPGPKEY", TTL: 300, Records: []string{"mQINBFq5ZXhhbXBsZQ=="}},
	{Name: "dhcp.shapes.example.test.", Type: "DHCID", TTL: 300, Records: []string{"AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="}},
	{Name: "lb.shapes.example.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.7"}},
	{Name: "front.shapes.example.test.", Type: "ALIAS", TTL: 300, Records: []string{"lb.shapes.example.test."}},
}

// TestExportRoundTripsEveryShape exports a zone holding every record
// shape (every type site manages, issue 12's too) from a real PowerDNS,
// checks that each one was adopted and is in the spec, then checks that the spec passes vet and that diff says No
// changes: an export that spelt one value differently (a multi-string
// TXT joined, INCIDENTS-style) would show an update apply then writes
// without a gate.
func TestExportRoundTripsEveryShape(t *testing.T) {
	srv := pdnsEnv(t)
	// export reads no site.cue: its marking verifies over DNS where the
	// environment says.
	t.Setenv(powerdns.EnvDNSAddr, srv.DNSAddr)
	srv.CreateZone(t, "shapes.example.test.", exportShapes...)
	out := filepath.Join(t.TempDir(), "shapes.cue")
	code, stdout, stderr := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "shapes.example.test",
		"--tenant", "shapes", "--out", out, "--adopt")
	if code != exitOK {
		t.Fatalf("export exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The operator adds the lines export printed to site.cue.
	if err := os.WriteFile(filepath.Join(filepath.Dir(out), "site.cue"), []byte(exportedSite(t, stderr)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(out)
	if code, stdout, stderr := siteRun(t, srv, "vet", out); code != exitOK {
		t.Fatalf("vet of the exported spec exit %d\n%s\nstdout:\n%s\nstderr:\n%s", code, src, stdout, stderr)
	}
	code, stdout, stderr = siteRun(t, srv, "diff", "--detailed-exitcode", out)
	if code != exitOK || !strings.Contains(stdout, "No changes.") {
		t.Fatalf("diff of the exported spec exit %d, want 0 and No changes.\n%s\nstdout:\n%s\nstderr:\n%s", code, src, stdout, stderr)
	}
	// Every shape is in the spec: --adopt marked it (a type export
	// skipped would stay unmarked and foreign, and diff would not see it).
	live := srv.Get(t, "shapes.example.test.")
	for _, shape := range exportShapes {
		rr := live.Find(shape.Name, shape.Type)
		if rr == nil || !slices.ContainsFunc(rr.Comments, func(c pdnstest.Comment) bool { return c.Account == powerdns.MarkerAccount }) {
			t.Errorf("%s %s: not adopted by the export (%+v)", shape.Name, shape.Type, rr)
		}
		if !strings.Contains(string(src), shape.Type+":") {
			t.Errorf("%s %s: the type is not in the exported spec:\n%s", shape.Name, shape.Type, src)
		}
	}
	if !strings.Contains(string(src), `["part one", "part two"]`) {
		t.Errorf("the two-string TXT is not written as a list of its strings:\n%s", src)
	}
}
