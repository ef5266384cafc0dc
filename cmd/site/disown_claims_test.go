package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// disownClaimSpecs writes site.cue (PowerDNS providers old and new,
// both granted to office1) and tenants/office1.cue, whose zone src
// declares; it returns site.cue's path and the tenant file's.
func disownClaimSpecs(t *testing.T, srv *pdnstest.Server, src string) (config, tenant string) {
	t.Helper()
	site := siteSrc(pdnsProvider("old", srv.URL, "PDNS_API_KEY", "off")+pdnsProvider("new", srv.URL, "PDNS_API_KEY", "off"),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"old", "new"}})
	dir := writeSpecs(t, site, map[string]string{})
	if err := os.Mkdir(filepath.Join(dir, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	tenant = filepath.Join(dir, "tenants", "office1.cue")
	if err := os.WriteFile(tenant, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "site.cue"), tenant
}

// office1On is office1's tenant file, its zone on provider.
func office1On(provider string) string {
	return "package tenants\n\ntenants: office1: {\n\tdomain: \"office1.example.test\"\n" +
		"\tdns: zones: \"office1.example.test\": {provider: \"" + provider + "\", ttl: 300, records: {www: A: [\"192.0.2.1\"]}}\n}\n"
}

// TestDisownWarnsWhenATenantStillDeclaresTheZone: disown --provider of a
// zone a tenant still declares on that provider (a command pasted from
// an old leftovers report) says, in the dry run and the acknowledged
// run, which tenant and where, and what its next apply will do, and
// still does what it was asked. A zone declared on another provider,
// or tenant files that do not load, change nothing but the note.
func TestDisownWarnsWhenATenantStillDeclaresTheZone(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone, marked("office1", "www."+zone, "192.0.2.1"))

	config, tenant := disownClaimSpecs(t, srv, office1On("old"))
	base := []string{"disown", "powerdns", "office1.example.test", "--provider", "old", "--config", config}
	warning := "tenant office1 still declares zone office1.example.test. on provider old, at " + tenant + ":5:14:"
	advice := []string{
		"its next apply takes the unmarked records back",
		"GATE-DNS-OVERWRITE",
		"remove the zone from " + tenant + " first",
	}
	code, out, errOut := siteRun(t, srv, base...)
	if code != exitGated || !strings.Contains(out, warning) || !containsAll(out, advice) {
		t.Fatalf("dry run of a declared zone: exit %d, want 3 and stdout holding %q and %q\nstdout:\n%s\nstderr:\n%s", code, warning, advice, out, errOut)
	}
	code, out, errOut = siteRun(t, srv, append(base, "--ack", "GATE-DNS-DISOWN")...)
	if code != exitOK || !strings.Contains(out, warning) || !strings.Contains(out, "removed site's owner marker from 1 record set") {
		t.Fatalf("acknowledged disown of a declared zone: exit %d, want 0, the warning and the markers removed\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// Declared on the other provider: nothing to say.
	srv.Replace(t, zone, marked("office1", "www."+zone, "192.0.2.1"))
	config, _ = disownClaimSpecs(t, srv, office1On("new"))
	code, out, errOut = siteRun(t, srv, "disown", "powerdns", "office1.example.test", "--provider", "old", "--config", config)
	if code != exitGated || strings.Contains(out, "still declares") || strings.Contains(out, "could not check") {
		t.Fatalf("zone declared on another provider: exit %d, want 3 and no warning\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// Tenant files that do not load: disown works, and says it could not check.
	config, _ = disownClaimSpecs(t, srv, "package tenants\n\ntenants: office1: {\n")
	code, out, errOut = siteRun(t, srv, "disown", "powerdns", "office1.example.test", "--provider", "old", "--config", config)
	if code != exitGated || !strings.Contains(out, "could not check whether a tenant still declares zone office1.example.test. on provider old") {
		t.Fatalf("tenant files that do not load: exit %d, want 3 and the note\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
