package main

import (
	"os"
	"path/filepath"
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
}

// TestExportRoundTripsEveryShape exports a zone holding every record
// shape, then checks that the spec passes vet and that diff says No
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
	if !strings.Contains(string(src), `["part one", "part two"]`) {
		t.Errorf("the two-string TXT is not written as a list of its strings:\n%s", src)
	}
}
