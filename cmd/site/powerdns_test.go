package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/words"
)

// These tests run the site command against a real PowerDNS that
// pdnstest starts for each test, as a user would: tenant files on disk
// beside the operator's site.cue, which names the server and its DNS
// address, and the API key in the environment.

// pdnsEnv starts a server and exports what site reads from the
// environment for it.
func pdnsEnv(t *testing.T) *pdnstest.Server {
	t.Helper()
	srv := pdnstest.New(t, pdnstest.Options{})
	t.Setenv("PDNS_API_KEY", srv.APIKey)
	// site.cue's dns: says where to verify; the environment must not.
	t.Setenv(powerdns.EnvDNSAddr, "")
	t.Setenv("NO_COLOR", "1")
	return srv
}

// siteRun runs site and returns its exit code and output; the API key
// must never be in either.
func siteRun(t *testing.T, srv *pdnstest.Server, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	for _, s := range []string{stdout.String(), stderr.String()} {
		if strings.Contains(s, srv.APIKey) {
			t.Fatalf("site %s printed the API key:\n%s", strings.Join(args, " "), s)
		}
	}
	return code, stdout.String(), stderr.String()
}

// tenantFile writes a tenant with one PowerDNS zone on srv, and the
// site.cue that grants it.
func tenantFile(t *testing.T, srv *pdnstest.Server, zone, records string) string {
	t.Helper()
	src := `package tenants

tenants: office1: {
	domain: "` + zone + `"
	dns: zones: "` + zone + `": {
		provider: "pdns"
		ttl: 300
		records: {
` + records + `
		}
	}
}
`
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{zone}, providers: []string{"pdns"}})
	return writeSpec(t, site, "office1.cue", src)
}

func TestPowerDNSExportThenVetAndDiff(t *testing.T) {
	srv := pdnsEnv(t)
	// export reads no site.cue: its marking verifies over DNS where the
	// environment says.
	t.Setenv(powerdns.EnvDNSAddr, srv.DNSAddr)
	const zone = "legacy.example.test."
	srv.CreateZone(t, zone,
		// The apex NS, which came with the zone: left out.
		pdnstest.RRset{Name: "legacy.example.test.", Type: "NS", TTL: 86400, Records: []string{"ns1.example.org.", "ns2.example.org."}},
		// TTL 300 for A and 3600 for MX at one name (issue 28): export
		// refused the whole zone; the spec says it with ttls now.
		pdnstest.RRset{Name: "legacy.example.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
		pdnstest.RRset{Name: "legacy.example.test.", Type: "MX", TTL: 3600, Records: []string{"10 mx.legacy.example.test."}},
		pdnstest.RRset{Name: "legacy.example.test.", Type: "TXT", TTL: 3600, Records: []string{`"v=spf1 mx -all"`}},
		pdnstest.RRset{Name: "mx.legacy.example.test.", Type: "A", TTL: 3600, Records: []string{"192.0.2.25"}},
		pdnstest.RRset{Name: "www.legacy.example.test.", Type: "CNAME", TTL: 300, Records: []string{"legacy.example.test."}},
		pdnstest.RRset{Name: "_xmpp._tcp.legacy.example.test.", Type: "SRV", TTL: 3600, Records: []string{"5 0 5222 chat.legacy.example.test."}},
		pdnstest.RRset{Name: "legacy.example.test.", Type: "CAA", TTL: 3600, Records: []string{`0 issue "letsencrypt.org"`}},
		pdnstest.RRset{Name: "*.apps.legacy.example.test.", Type: "A", TTL: 3600, Records: []string{"192.0.2.80"}},
		pdnstest.RRset{Name: "mx.legacy.example.test.", Type: "AFSDB", TTL: 3600, Records: []string{"1 afs.legacy.example.test."}},
	)
	// By default export only reads: to stdout or to a file, the zone
	// keeps no marker, and diff proposes to adopt every rrset.
	code, stdout, stderr := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "legacy.example.test", "--tenant", "legacy")
	if code != exitOK || !strings.Contains(stdout, "package tenants") || !strings.Contains(stderr, "nothing marked on the server (read-only; --adopt marks)") {
		t.Fatalf("export to stdout exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	out := filepath.Join(t.TempDir(), "legacy.cue")
	if code, stdout, stderr := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "legacy.example.test",
		"--tenant", "legacy", "--out", out); code != exitOK {
		t.Fatalf("export --out exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, rs := range srv.Get(t, zone).RRsets {
		if len(rs.Comments) != 0 {
			t.Errorf("export without --adopt left a comment on %s %s: %+v", rs.Name, rs.Type, rs.Comments)
		}
	}
	// The operator adds the lines export printed to site.cue.
	site := filepath.Join(filepath.Dir(out), "site.cue")
	if err := os.WriteFile(site, []byte(exportedSite(t, stderr)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := siteRun(t, srv, "diff", "--detailed-exitcode", out); code != exitChanges || !strings.Contains(stdout, "0 to create, 0 to update, 0 to delete, 8 to adopt") {
		t.Fatalf("diff after a read-only export: exit %d, want 2 and 8 to adopt\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The file is there now: export refuses to replace it, before asking
	// the server anything, and leaves it as it was.
	if err := os.WriteFile(out, []byte("// hand-written\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "legacy.example.test",
		"--tenant", "legacy", "--out", out, "--adopt")
	if src, _ := os.ReadFile(out); code != exitError || !strings.Contains(stderr, "exists; export writes a whole tenant file and would replace it") || string(src) != "// hand-written\n" {
		t.Fatalf("export onto an existing file: exit %d, file now %q\nstdout:\n%s\nstderr:\n%s", code, src, stdout, stderr)
	}
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "legacy.example.test",
		"--tenant", "legacy", "--api-key-env", "PDNS_API_KEY", "--out", out, "--force", "--adopt")
	if code != exitOK {
		t.Fatalf("export --force --adopt exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "left out: mx.legacy.example.test. AFSDB") || !strings.Contains(stderr, "left out: legacy.example.test. NS") || !strings.Contains(stderr, "marked 8 RRsets") {
		t.Errorf("stderr does not say what was left out and marked:\n%s", stderr)
	}
	// site.cue beside the file declares the server and grants the
	// tenant now (from the first export's lines): this export needs no
	// lines, and says so.
	if !strings.Contains(stderr, "site.cue grants tenant legacy zone legacy.example.test. on provider powerdns already; it needs no lines") ||
		strings.Contains(stderr, "tenants:") {
		t.Errorf("export beside a site.cue that declares the server and grants the zone does not say so:\n%s", stderr)
	}
	src, _ := os.ReadFile(out)
	if lines, _ := os.ReadFile(site); strings.Contains(string(src)+string(lines)+stderr, srv.APIKey) || strings.Contains(string(src), "PDNS_API_KEY") || !strings.Contains(string(lines), `env: "PDNS_API_KEY"`) {
		t.Errorf("site.cue must name the key's variable, never its value, and the tenant's file neither:\n%s\n%s", src, lines)
	}
	if code, stdout, stderr := siteRun(t, srv, "vet", out); code != exitOK {
		t.Fatalf("vet of the exported spec exit %d\n%s\nstdout:\n%s\nstderr:\n%s", code, src, stdout, stderr)
	}
	code, stdout, stderr = siteRun(t, srv, "diff", "--detailed-exitcode", out)
	if code != exitOK || !strings.Contains(stdout, "No changes.") {
		t.Fatalf("diff of the exported spec exit %d, want 0 and No changes.\n%s\nstdout:\n%s\nstderr:\n%s", code, src, stdout, stderr)
	}
	if r := srv.Get(t, zone).Find("mx.legacy.example.test.", "AFSDB"); r == nil || len(r.Comments) != 0 {
		t.Errorf("got %+v, want the AFSDB left as it was", r)
	}
}

func TestPowerDNSFailedObservationExitsOne(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "flap.example.test."
	file := tenantFile(t, srv, "flap.example.test", `
			www: A: ["192.0.2.80"]`)
	if code, stdout, stderr := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The spec drops www; the zone cannot be read: nothing may be deleted.
	file = tenantFile(t, srv, "flap.example.test", "")
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) { return 502, "Bad Gateway", r.Method == "GET" })
	srv.ResetRequests(zone)
	code, stdout, stderr := siteRun(t, srv, "apply", file)
	if code != exitError {
		t.Fatalf("apply exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "observe zone flap.example.test.") || !strings.Contains(stdout+stderr, "deletes least of all") {
		t.Errorf("output does not say the zone could not be observed:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("got %d writes, want none", got)
	}
	if got := srv.Query(t, "www.flap.example.test.", "A"); len(got) != 1 {
		t.Errorf("got %q, want www still served", got)
	}
}

// TestPowerDNSApplyReportCountsReadsWritesQueries: an apply of 30 rrsets
// into an existing zone reports its API reads and writes apart and its
// one zone transfer (issue 13: it said "1 request" for what were 30 DNS
// queries, a PATCH and two GETs), and the reads and writes are those
// the server saw during apply.
func TestPowerDNSApplyReportCountsReadsWritesQueries(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "counts.example.test."
	// With its apex NS, so that observing is one GET.
	srv.CreateZone(t, zone, pdnstest.RRset{Name: zone, Type: "NS", TTL: 3600, Records: []string{"ns1.example.test."}})
	var records strings.Builder
	for i := range 30 {
		fmt.Fprintf(&records, "\t\t\th%d: A: [\"192.0.2.%d\"]\n", i, i+1)
	}
	file := tenantFile(t, srv, "counts.example.test", records.String())
	srv.ResetRequests(zone)
	code, stdout, stderr := siteRun(t, srv, "apply", file)
	if code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	seen := srv.Requests(zone)
	// Apply observes once before its plan; the rest are the step's own.
	reads := seen.GET - 1
	want := fmt.Sprintf("dns/%s: 30 changes, %s, %s, 1 DNS query\n", zone, words.Count(reads, "read"), words.Count(seen.Writes(), "write"))
	if !strings.Contains(stdout, want) || seen.Writes() != 1 {
		t.Errorf("the report lacks %q (the server saw %+v):\n%s", want, seen, stdout)
	}
	if !strings.Contains(stdout, "Apply complete: 1 applied; "+words.Count(reads, "read")+", 1 write, 1 DNS query.") {
		t.Errorf("the summary does not count what the server saw (%+v):\n%s", seen, stdout)
	}
}

// TestExportNamesTheDeclaredProvider: where the operator's site.cue
// already declares the server export reads (same url and server id), the
// spec names that provider and the lines for site.cue only grant it; the
// operator appends them and the tenant vets and diffs. (export proposed a
// second provider, "powerdns", for the same server.) A server site.cue
// does not declare still gets its declaration.
func TestExportNamesTheDeclaredProvider(t *testing.T) {
	// No SITE_PDNS_DNS_ADDR (pdnsEnv clears it): --adopt checks what the
	// server serves where the declared provider's dns: says, as apply
	// does; it asked port 53 and failed.
	srv := pdnsEnv(t)
	const zone = "named.example.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www.named.example.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.7"}})
	dir := t.TempDir()
	site := fmt.Sprintf("package site\n\nproviders: {\n\tours: powerdns: {url: %q, api_key: env: \"PDNS_API_KEY\", dns: %q}\n\tother: powerdns: {url: \"http://192.0.2.1:8081\", api_key: env: \"PDNS_API_KEY\"}\n}\n", srv.URL+"/", srv.DNSAddr)
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	out := filepath.Join(dir, "named.cue")
	code, stdout, stderr := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "named", "--out", out, "--adopt")
	if code != exitOK || !strings.Contains(stderr, "site.cue declares this server as provider ours; it needs these lines to grant it:") ||
		!strings.Contains(stderr, "marked 1 RRsets") {
		t.Fatalf("export exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	_, lines, _ := strings.Cut(stderr, "to grant it:\n\n")
	lines, _, _ = strings.Cut(lines, "\n\n")
	if strings.Contains(lines, "powerdns:") || !strings.Contains(lines, `providers: ["ours"]`) {
		t.Errorf("the lines for site.cue declare a provider again, or do not grant ours:\n%s", lines)
	}
	if spec, _ := os.ReadFile(out); !strings.Contains(string(spec), `provider: "ours"`) {
		t.Errorf("the spec does not name provider ours:\n%s", spec)
	}
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(site+"\n"+lines+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := siteRun(t, srv, "diff", "--detailed-exitcode", out); code != exitOK || !strings.Contains(stdout, "No changes.") {
		t.Fatalf("diff after the export: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Now site.cue grants it all: export says so and prints no lines
	// (it asked for the lines the operator had just added).
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "named")
	if code != exitOK || strings.Contains(stderr, "needs these lines") || strings.Contains(stderr, "tenants:") ||
		!strings.Contains(stderr, "site.cue grants tenant named zone named.example.test. on provider ours already; it needs no lines") {
		t.Errorf("export once site.cue grants the zone: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// The same server spelt another way (localhost for 127.0.0.1, the
	// API path as PowerDNS writes it) is the provider site.cue declares
	// for it, as site leftovers reads it, and export reads through it.
	alias := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, spelt := range []string{alias, srv.URL + "/api/v1", alias + "/api/v1/"} {
		code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", spelt, "--zone", zone, "--tenant", "named")
		if code != exitOK || !strings.Contains(stderr, "site.cue grants tenant named zone named.example.test. on provider ours already") {
			t.Errorf("export through %s: exit %d\nstdout:\n%s\nstderr:\n%s", spelt, code, stdout, stderr)
		}
	}

	// --provider names it as site.cue does, as disown's does: no --url.
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--provider", "ours", "--zone", zone, "--tenant", "named")
	if code != exitOK || !strings.Contains(stderr, "site.cue grants tenant named zone named.example.test. on provider ours already") ||
		!strings.Contains(stdout, `provider: "ours"`) {
		t.Errorf("export --provider ours: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "our"}, "--provider our: site.cue declares no provider our: did you mean ours? (its PowerDNS providers: other, ours)"},
		{[]string{"--provider", "ours", "--url", srv.URL}, "--provider ours and --url both say where the server is"},
	} {
		args := append([]string{"export", "powerdns", "--zone", zone, "--tenant", "named"}, tc.args...)
		if code, _, stderr := siteRun(t, srv, args...); code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("site %s: exit %d, want 1 and %q\nstderr:\n%s", strings.Join(args, " "), code, tc.want, stderr)
		}
	}

	// Another server id at the same url is another server.
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--server", "other", "--zone", zone, "--tenant", "named")
	if strings.Contains(stderr, "declares this server") || strings.Contains(stdout, `provider: "ours"`) {
		t.Errorf("export of server id other took provider ours: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// Two providers for the one server: export cannot choose, and says so.
	twice := fmt.Sprintf("package site\n\nproviders: {\n\tours: powerdns: {url: %q, api_key: env: \"PDNS_API_KEY\"}\n\ttoo: powerdns: {url: %q, api_key: env: \"OTHER_KEY\"}\n}\n", srv.URL, srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(twice), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "named")
	if code != exitOK || !strings.Contains(stderr, "note: site.cue declares this server as 2 providers (ours, too); the spec names a new one, powerdns: name the one you mean in both") {
		t.Errorf("export with two providers for the server: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestExportPassesOnVetWarnings: site vet's warnings for the exported
// spec (here a DS that no NS delegates) are printed as warning: lines,
// positioned in --out, and the spec is written all the same; export
// dropped them, and the first the operator heard was site vet's.
func TestExportPassesOnVetWarnings(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "warned.example.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.7"}},
		pdnstest.RRset{Name: "d." + zone, Type: "DS", TTL: 300, Records: []string{"2371 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"}})
	site := "package site\n\n" + pdnsProvider("ours", srv.URL, "PDNS_API_KEY", srv.DNSAddr) +
		"tenants: warned: {domains: [\"warned.example.test\"], providers: [\"ours\"]}\n"
	dir := writeSpecs(t, site, map[string]string{})
	t.Chdir(dir)
	code, stdout, stderr := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "warned", "--out", "warned.cue")
	want := `warning: warned.cue:`
	if code != exitOK || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, `: tenants.warned.dns.zones."warned.example.test".records.d.DS: d.warned.example.test. has a DS but no NS in zone warned.example.test.`) {
		t.Fatalf("export exit %d, want 0 and a warning\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	_, line, _ := strings.Cut(stderr, want)
	line, _, _ = strings.Cut(line, ":")
	if code, vout, verr := siteRun(t, srv, "vet", "warned.cue"); code != exitOK || !strings.Contains(vout, "warned.cue:"+line+":") {
		t.Errorf("site vet of the written spec: exit %d, want 0 and the warning at line %s\nstdout:\n%s\nstderr:\n%s", code, line, vout, verr)
	}
}

// TestExportRefusesWhatSiteVetRefuses: exporting a parent zone inside
// which site.cue delegates a name to another tenant, whose apex NS (the
// tenant's already) names servers site.cue does not list for the
// provider, and whose delegation names a server the child tenant's zone
// beside --out does not: export wrote the spec and --adopt marked it,
// and then site vet refused it. Now it refuses with vet's messages,
// writes nothing and marks nothing; once the operator lists the name
// servers and the delegation on the server names the child's, it
// exports, and site vet passes.
func TestExportRefusesWhatSiteVetRefuses(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "parent.example.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: zone, Type: "NS", TTL: 300, Records: []string{"ns1.example.net."},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("acme")}}},
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
		pdnstest.RRset{Name: "shop." + zone, Type: "NS", TTL: 300, Records: []string{"ns.evil.example."}},
	)
	provider := fmt.Sprintf("providers: pdns: {powerdns: {url: %q, api_key: env: \"PDNS_API_KEY\", dns: %q}%%s}\n", srv.URL, srv.DNSAddr)
	grants := `tenants: {
	acme: {domains: ["parent.example.test"], providers: ["pdns"]}
	shop: {delegate: ["shop.parent.example.test"], providers: ["pdns"]}
}
`
	dir := writeSpecs(t, "package site\n\n"+fmt.Sprintf(provider, "")+grants, map[string]string{"shop.cue": `package tenants

tenants: shop: {
	domain: "shop.parent.example.test"
	dns: zones: "shop.parent.example.test": {provider: "pdns", records: "@": NS: ["ns1.example.net."]}
}
`})
	out := filepath.Join(dir, "acme.cue")
	export := []string{"export", "powerdns", "--url", srv.URL, "--zone", zone, "--tenant", "acme", "--out", out, "--adopt"}
	srv.ResetRequests(zone)
	code, stdout, stderr := siteRun(t, srv, export...)
	if code != exitError {
		vcode, vout, verr := siteRun(t, srv, "vet", out)
		t.Fatalf("export exit %d, want 1\nstdout:\n%s\nstderr:\n%s\nsite vet of what it wrote: exit %d\n%s%s", code, stdout, stderr, vcode, vout, verr)
	}
	for _, want := range []string{
		"site vet of " + out + " would refuse the exported spec for tenant acme (checked with ",
		"nothing was written or marked",
		`records."@".NS: parent.example.test. NS is at the apex of zone parent.example.test., above shop.parent.example.test., which site.cue grants to tenant shop, and site.cue lists no name servers for provider pdns`,
		`records.shop.NS.0: shop.parent.example.test. NS names ns.evil.example., which tenant shop's zone shop.parent.example.test. does not name at its apex`,
		filepath.Join(dir, "shop.cue") + ":5:",
		"then run site export again",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("export wrote %s, which site vet refuses", out)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("export made %d writes to a zone whose spec site vet refuses, want none", got)
	}

	// The operator lists the name servers; the delegation on the server
	// names the child's.
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte("package site\n\n"+fmt.Sprintf(provider, `, nameservers: ["ns1.example.net."]`)+grants), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: "shop." + zone, Type: "NS", TTL: 300, Records: []string{"ns1.example.net."}})
	if code, stdout, stderr := siteRun(t, srv, export...); code != exitOK || !strings.Contains(stderr, "marked 2 RRsets") {
		t.Fatalf("export exit %d, want 0 and 2 marked\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := siteRun(t, srv, "vet", out); code != exitOK {
		t.Fatalf("vet of the exported spec exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
