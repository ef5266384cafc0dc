package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/lock/locktest"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/golden"
)

// marked is an rrset carrying tenant's owner marker, as site writes it.
func marked(tenant, name string, records ...string) pdnstest.RRset {
	return pdnstest.RRset{Name: name, Type: "A", TTL: 300, Records: records,
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker(tenant)}}}
}

// leftoversOnTwoServers is two PowerDNS servers as site leftovers meets
// them: on old, a removed tenant's zone (its file and grant gone), the
// copy office1's zone left when it moved to new, a zone no tenant ever
// had (unmarked) and a zone tenant kept declares there; on new,
// office1's zone where it is declared now.
func leftoversOnTwoServers(t *testing.T) (old, moved *pdnstest.Server, dir string) {
	old = pdnsEnv(t)
	moved = pdnstest.New(t, pdnstest.Options{})
	t.Setenv("PDNS_API_KEY_NEW", moved.APIKey)
	old.CreateZone(t, "gone.test.", marked("gone", "www.gone.test.", "192.0.2.1"), marked("gone", "mail.gone.test.", "192.0.2.2"),
		marked("gone", "a.gone.test.", "192.0.2.3"), marked("gone", "b.gone.test.", "192.0.2.4"))
	old.CreateZone(t, "office1.example.test.", marked("office1", "www.office1.example.test.", "192.0.2.10"))
	old.CreateZone(t, "foreign.test.", pdnstest.RRset{Name: "www.foreign.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.20"}})
	old.CreateZone(t, "kept.test.", marked("kept", "www.kept.test.", "192.0.2.30"))
	moved.CreateZone(t, "office1.example.test.", marked("office1", "www.office1.example.test.", "192.0.2.10"))
	site := siteSrc(pdnsProvider("old", old.URL, "PDNS_API_KEY", old.DNSAddr)+pdnsProvider("new", moved.URL, "PDNS_API_KEY_NEW", moved.DNSAddr),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"old", "new"}},
		grant{tenant: "kept", domains: []string{"kept.test"}, providers: []string{"old"}})
	zone := func(tenant, zone, provider, records string) string {
		return "package tenants\n\ntenants: " + tenant + ": {\n\tdomain: \"" + zone + "\"\n\tdns: zones: \"" + zone + "\": {provider: \"" + provider + "\", ttl: 300, records: {" + records + "}}\n}\n"
	}
	dir = writeSpecs(t, site, map[string]string{
		"office1.cue": zone("office1", "office1.example.test", "new", `www: A: ["192.0.2.10"]`),
		"kept.cue":    zone("kept", "kept.test", "old", `www: A: ["192.0.2.30"]`),
	})
	return old, moved, dir
}

// TestLeftoversFindsMarkedZonesNoTenantDeclares: site leftovers reports
// the removed tenant's zone and the copy a moved zone left, with their
// owners and the disown command, exits 2, and reads only what no
// tenant declares on each server: one zone list per server, one read
// per undeclared zone, none of a declared one. The unmarked zone is
// read and not reported. Running the commands it printed leaves
// nothing over (exit 0).
func TestLeftoversFindsMarkedZonesNoTenantDeclares(t *testing.T) {
	old, moved, dir := leftoversOnTwoServers(t)
	// From elsewhere, site.cue is found beside the PATH, and the
	// commands printed name it, or pasted here they would not find it.
	code, out, errOut := siteRun(t, old, "leftovers", dir)
	if want := "--ack GATE-DNS-DISOWN --config " + filepath.Join(dir, "site.cue") + "\n"; code != exitChanges || !strings.Contains(out, want) {
		t.Fatalf("leftovers from another directory: exit %d, want %d and commands ending in %q\nstdout:\n%s\nstderr:\n%s", code, exitChanges, want, out, errOut)
	}
	old.ResetRequests("")
	for _, z := range []string{"gone.test.", "office1.example.test.", "foreign.test.", "kept.test."} {
		old.ResetRequests(z)
		moved.ResetRequests(z)
	}
	moved.ResetRequests("")
	// One tenant file named: its neighbour kept.cue counts too, so
	// kept.test is not a leftover.
	t.Chdir(dir)
	code, out, errOut = siteRun(t, old, "leftovers", "office1.cue")
	if code != exitChanges {
		t.Fatalf("leftovers: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitChanges, out, errOut)
	}
	golden.Check(t, filepath.Join(pkgDir, "testdata", "leftovers_pdns.golden"), []byte(out))
	for _, c := range []struct {
		srv  *pdnstest.Server
		zone string
		gets int
	}{
		{old, "", 1}, {old, "gone.test.", 1}, {old, "office1.example.test.", 1}, {old, "foreign.test.", 1}, {old, "kept.test.", 0},
		{moved, "", 1}, {moved, "office1.example.test.", 0},
	} {
		if got := c.srv.Requests(c.zone); got.GET != c.gets || got.Writes() != 0 {
			t.Errorf("requests for %q on %s: %+v, want %d GETs and no write", c.zone, c.srv.URL, got, c.gets)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		_, command, ok := strings.Cut(line, "(the records stay, no tenant's): ")
		if !ok {
			continue
		}
		args := strings.Fields(command)[1:]
		if code, o, e := siteRun(t, old, args...); code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", command, code, o, e)
		}
	}
	if code, out, errOut := siteRun(t, old, "leftovers", dir); code != exitOK || !strings.Contains(out, "Nothing left over on 2 providers and 0 hosts.") {
		t.Errorf("after disown: exit %d, want 0 and nothing left over\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestLeftoversSaysWhatItCouldNotRead: a provider whose key is not set
// is reported unread, and the run exits 1 even though the other
// provider holds nothing left over: never "nothing left over" for what
// was not read.
func TestLeftoversSaysWhatItCouldNotRead(t *testing.T) {
	old, _, dir := leftoversOnTwoServers(t)
	t.Setenv("PDNS_API_KEY_NEW", "")
	code, out, errOut := siteRun(t, old, "leftovers", "--format", "json", dir)
	if code != exitError {
		t.Fatalf("leftovers: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`"name": "new"`, `"error": "provider new: read the PowerDNS API key: environment variable PDNS_API_KEY_NEW is empty or unset`, `"zone": "gone.test."`} {
		if !strings.Contains(out, want) {
			t.Errorf("the JSON report lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "could not be read") {
		t.Errorf("stderr does not say what could not be read:\n%s", errOut)
	}
}

// TestLeftoversOneProvider: --provider NAME reads only the provider
// site.cue declares under that name: another it cannot read (its key
// unset) is neither asked nor reported, and what NAME holds is. A name
// site.cue does not declare is refused with the nearest one.
func TestLeftoversOneProvider(t *testing.T) {
	old, moved, dir := leftoversOnTwoServers(t)
	t.Setenv("PDNS_API_KEY_NEW", "")
	moved.ResetRequests("")
	code, out, errOut := siteRun(t, old, "leftovers", "--provider", "old", dir)
	if code != exitChanges || !strings.Contains(out, "zone gone.test.: no tenant declares it") || strings.Contains(out, "provider new (powerdns)") {
		t.Fatalf("leftovers --provider old: exit %d, want %d, gone.test. and nothing of provider new\nstdout:\n%s\nstderr:\n%s", code, exitChanges, out, errOut)
	}
	if got := moved.Requests(""); got.GET != 0 {
		t.Errorf("provider new was asked %d times, want never", got.GET)
	}
	code, _, errOut = siteRun(t, old, "leftovers", "--provider", "olde", dir)
	if want := "--provider olde: " + filepath.Join(dir, "site.cue") + " declares no provider olde: did you mean old? (its providers: new, old)"; code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("leftovers --provider olde: exit %d, want 1 and %q\nstderr:\n%s", code, want, errOut)
	}
}

// TestLeftoversInterruptedSaysWhatWasNotRead: Ctrl-C while the first
// leftovers.ZoneReadsAtOnce zones are being read stops the reading (it
// only reads); those and the zones whose turn had not come are said not
// read, the latter never asked for, and the run exits 1, never "nothing
// left over".
func TestLeftoversInterruptedSaysWhatWasNotRead(t *testing.T) {
	old, _, dir := leftoversOnTwoServers(t)
	// Listed after the three undeclared zones of old: 12 to read.
	var later []string
	for i := range 9 {
		z := fmt.Sprintf("y%02d.test.", i)
		old.CreateZone(t, z)
		old.ResetRequests(z)
		later = append(later, z)
	}
	arrived, release := make(chan string, 16), make(chan struct{})
	old.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/zones/") {
			arrived <- r.URL.Path
			<-release
		}
		return 0, "", false
	})
	t.Cleanup(func() { close(release) }) // before FailWhen's own cleanup: the held requests end
	s, done := startInterruptible(t, "leftovers", dir)
	for range leftovers.ZoneReadsAtOnce {
		select {
		case <-arrived:
		case <-done:
			t.Fatalf("leftovers ended before %d zones were being read (exit %d):\n%s\n%s", leftovers.ZoneReadsAtOnce, <-s.code, s.out, s.err)
		}
	}
	s.sigs <- os.Interrupt
	<-done
	out := s.out.String()
	if code := <-s.code; code != exitError {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, s.err)
	}
	for _, want := range []string{"zone foreign.test.: could not be read", "zone gone.test.: could not be read", "zone y04.test.: could not be read",
		"zone y05.test.: could not be read, so nothing is known of it: not read: the run was interrupted",
		"13 zones listed, 8 read", "Nothing left over where site could read, but 12 providers, zones or hosts could not be read."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, z := range later[5:] {
		if got := old.Requests(z); got.GET != 0 {
			t.Errorf("%s, whose turn came after the interrupt, was asked for %d times, want never", z, got.GET)
		}
	}
	if !strings.Contains(s.err.String(), "site: interrupted") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", s.err)
	}
}

// TestLeftoversKnowsOneServerUnderTwoURLs: site.cue may name one
// PowerDNS twice, by 127.0.0.1 and by localhost (or with the host in
// capitals, or a trailing slash). A zone a tenant
// declares through one is that tenant's live zone through the other
// too: it is not left over, and no disown command that would take its
// markers off is printed.
func TestLeftoversKnowsOneServerUnderTwoURLs(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "kept.test.", marked("kept", "www.kept.test.", "192.0.2.30"))
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("pdnstest serves %s, not on 127.0.0.1", srv.URL)
	}
	for _, alias := range []string{
		strings.Replace(srv.URL, "127.0.0.1", "localhost", 1),
		strings.Replace(srv.URL, "127.0.0.1", "LocalHost", 1) + "/",
	} {
		t.Run(alias, func(t *testing.T) {
			site := siteSrc(pdnsProvider("a", srv.URL, "PDNS_API_KEY", srv.DNSAddr)+pdnsProvider("b", alias, "PDNS_API_KEY", srv.DNSAddr),
				grant{tenant: "kept", domains: []string{"kept.test"}, providers: []string{"a"}})
			dir := writeSpecs(t, site, map[string]string{
				"kept.cue": "package tenants\n\ntenants: kept: {\n\tdomain: \"kept.test\"\n\tdns: zones: \"kept.test\": {provider: \"a\", ttl: 300, records: {www: A: [\"192.0.2.30\"]}}\n}\n",
			})
			t.Chdir(dir)
			code, out, errOut := siteRun(t, srv, "leftovers", "kept.cue")
			if code != exitOK || strings.Contains(out, "disown") || !strings.Contains(out, "provider b (powerdns): the same server as provider a") {
				t.Errorf("leftovers: exit %d, want 0, b as a's alias and no disown command\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

// TestLeftoversDoesNotJudgeAGrantedTenantItDidNotLoad: tenant team's
// file is in a directory no PATH reaches (tenants/team/), so it is not
// loaded, but site.cue still grants team: its zone is live, not left
// over. The report says why it is not judged, prints no disown command
// for it and exits 1, as for what it could not read.
func TestLeftoversDoesNotJudgeAGrantedTenantItDidNotLoad(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "kept.test.", marked("kept", "www.kept.test.", "192.0.2.30"))
	srv.CreateZone(t, "team.test.", marked("team", "www.team.test.", "192.0.2.40"))
	zone := func(tenant, zone string) string {
		return "package tenants\n\ntenants: " + tenant + ": {\n\tdomain: \"" + zone + "\"\n\tdns: zones: \"" + zone + "\": {provider: \"pdns\", ttl: 300, records: {www: A: [\"192.0.2.30\"]}}\n}\n"
	}
	dir := writeSpecs(t, siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "kept", domains: []string{"kept.test"}, providers: []string{"pdns"}},
		grant{tenant: "team", domains: []string{"team.test"}, providers: []string{"pdns"}}), map[string]string{})
	writeTenants(t, dir, map[string]string{"kept.cue": zone("kept", "kept.test")})
	if err := os.MkdirAll(filepath.Join(dir, "tenants", "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tenants", "team", "team.cue"), []byte(zone("team", "team.test")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, out, errOut := siteRun(t, srv, "leftovers"); code != exitOK {
		t.Fatalf("leftovers on every tenant file: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := siteRun(t, srv, "leftovers", "tenants/kept.cue")
	if code != exitError || strings.Contains(out, "disown") {
		t.Errorf("leftovers tenants/kept.cue: exit %d, want 1 and no disown command\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"zone team.test.: not judged: tenant team is granted in site.cue, but its file was not loaded"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestLeftoversReadsZonesAFewAtATime: the zones no tenant declares are
// read several at a time, never more than leftovers.ZoneReadsAtOnce, each once,
// and reported in the provider's order (by name) whatever order the
// answers come in: here 20 zones, every other one a removed tenant's.
func TestLeftoversReadsZonesAFewAtATime(t *testing.T) {
	srv := pdnsEnv(t)
	var zones []string
	for i := range 20 {
		zone := fmt.Sprintf("z%02d.test.", i)
		zones = append(zones, zone)
		rr := pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}
		if i%2 == 0 {
			rr = marked("gone", "www."+zone, "192.0.2.1")
		}
		srv.CreateZone(t, zone, rr)
		srv.ResetRequests(zone)
	}
	srv.ResetRequests("")
	g := locktest.NewGauge()
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/zones/z") {
			g.Enter()
			defer g.Leave()
		}
		return 0, "", false
	})
	dir := writeSpecs(t, siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)), map[string]string{})
	code, out, errOut := siteRun(t, srv, "leftovers", dir)
	if code != exitChanges {
		t.Fatalf("leftovers: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitChanges, out, errOut)
	}
	golden.Check(t, filepath.Join(pkgDir, "testdata", "leftovers_pdns_many.golden"), []byte(strings.ReplaceAll(out, dir, "DIR")))
	for _, z := range zones {
		if got := srv.Requests(z); got.GET != 1 || got.Writes() != 0 {
			t.Errorf("requests for %s: %+v, want 1 GET and no write", z, got)
		}
	}
	if got := srv.Requests(""); got.GET != 1 || got.Writes() != 0 {
		t.Errorf("zone lists: %+v, want 1 GET and no write", got)
	}
	if g.Most() < 2 || g.Most() > leftovers.ZoneReadsAtOnce {
		t.Errorf("read at most %d zones at once, want 2 to %d", g.Most(), leftovers.ZoneReadsAtOnce)
	}
}
