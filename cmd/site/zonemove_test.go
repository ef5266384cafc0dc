package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestZoneMovedToAnotherServerLeavesItsRecords pins what README's "What
// a tenant no longer declares in DNS" says of a zone whose provider:
// changes: site reads only the provider the zone names, so the server
// it left keeps the zone's marked records, untouched; moved back, the
// zone converges there again and the marked records the spec no longer
// wants are deleted.
func TestZoneMovedToAnotherServerLeavesItsRecords(t *testing.T) {
	old := pdnsEnv(t)
	moved := pdnstest.New(t, pdnstest.Options{})
	t.Setenv("PDNS_API_KEY_NEW", moved.APIKey)
	const zone = "office1.example.test."
	site := siteSrc(pdnsProvider("old", old.URL, "PDNS_API_KEY", old.DNSAddr)+pdnsProvider("new", moved.URL, "PDNS_API_KEY_NEW", moved.DNSAddr),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"old", "new"}})
	spec := func(provider, records string) string {
		return `package tenants

tenants: office1: {
	domain: "office1.example.test"
	dns: zones: "office1.example.test": {provider: "` + provider + `", ttl: 300, records: {` + records + `}}
}
`
	}
	dir := writeSpecs(t, site, map[string]string{})
	file := filepath.Join(dir, "office1.cue")
	step := func(provider, records string, want ...string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(spec(provider, records)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := siteRun(t, old, "apply", "--yes", file)
		if code != exitOK {
			t.Fatalf("apply on %s: exit %d\nstdout:\n%s\nstderr:\n%s", provider, code, out, errOut)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("apply on %s does not show %q\nstdout:\n%s", provider, w, out)
			}
		}
	}
	marked := func(srv *pdnstest.Server) []string {
		t.Helper()
		var names []string
		for _, rs := range srv.Get(t, zone).RRsets {
			for _, c := range rs.Comments {
				if c.Account == powerdns.MarkerAccount && c.Content == powerdns.Marker("office1") {
					names = append(names, rs.Name+" "+rs.Type)
				}
			}
		}
		return names
	}

	step("old", `www: A: ["192.0.2.10"], mail: A: ["192.0.2.25"]`)
	step("new", `www: A: ["192.0.2.10"]`)
	if got, want := strings.Join(marked(old), ", "), "mail.office1.example.test. A, www.office1.example.test. A"; got != want {
		t.Errorf("the server the zone left holds marked %q, want %q, untouched", got, want)
	}
	if got, want := strings.Join(marked(moved), ", "), "www.office1.example.test. A"; got != want {
		t.Errorf("the server the zone moved to holds marked %q, want %q", got, want)
	}
	step("old", `www: A: ["192.0.2.10"]`, "- mail A")
	if got, want := strings.Join(marked(old), ", "), "www.office1.example.test. A"; got != want {
		t.Errorf("moved back, the server holds marked %q, want %q", got, want)
	}
}
