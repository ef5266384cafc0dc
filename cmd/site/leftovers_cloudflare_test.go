package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/golden"
)

// TestLeftoversOnCloudflare: with the token in a Vault store, as diff
// reads it, site leftovers lists the account's zones once and reads the
// records of the two no tenant declares (one listing each, by the
// zone's id), reports the removed tenant's marked names once per name
// and type (a Cloudflare record carries one marker each), not the
// unmarked zone, and never reads the declared one. --format json is the
// versioned report.
func TestLeftoversOnCloudflare(t *testing.T) {
	cs := newColdStart(t, "kept.example.net")
	gone := cs.cf.AddZone("gone.example.net")
	foreign := cs.cf.AddZone("foreign.example.net")
	for _, r := range []struct {
		zone string
		rec  cftest.Record
	}{
		{gone, cftest.Record{Name: "www.gone.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: cloudflare.Marker("gone")}},
		{gone, cftest.Record{Name: "www.gone.example.net", Type: "A", Content: "192.0.2.2", TTL: 300, Comment: cloudflare.Marker("gone")}},
		{gone, cftest.Record{Name: "gone.example.net", Type: "MX", Content: "mx.example.org", Priority: u16(10), TTL: 300, Comment: cloudflare.Marker("gone")}},
		{foreign, cftest.Record{Name: "www.foreign.example.net", Type: "A", Content: "192.0.2.3", TTL: 300}},
		{cs.zoneID, cftest.Record{Name: "www.kept.example.net", Type: "A", Content: "192.0.2.4", TTL: 300, Comment: cloudflare.Marker("kept")}},
	} {
		if _, err := cs.cf.AddRecord(r.zone, r.rec); err != nil {
			t.Fatal(err)
		}
	}
	site := siteSrc(fmt.Sprintf("vaults: bao: {addrs: [%q], mount: \"secret\", token: env: \"VAULT_TOKEN\"}\n", cs.vault.URL)+
		cfProvider("cf", cs.cf.URL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`),
		grant{tenant: "kept", domains: []string{"kept.example.net"}, providers: []string{"cf"}})
	// Laid out as a repository is: site.cue on top, tenants/ beside it,
	// where site leftovers looks by default.
	dir := writeSpecs(t, site, map[string]string{})
	writeTenants(t, dir, map[string]string{"kept.cue": `package tenants

tenants: kept: {
	domain: "kept.example.net"
	dns: zones: "kept.example.net": {provider: "cf", ttl: 300, records: www: A: ["192.0.2.4"]}
}
`})
	t.Chdir(dir)
	cs.cf.ResetCounts()
	for _, c := range []struct{ format, golden string }{
		{"text", "leftovers_cloudflare.golden"},
		{"json", "leftovers_cloudflare_json.golden"},
	} {
		code, out, errOut := cs.site(t, "leftovers", "--format", c.format)
		if code != exitChanges {
			t.Fatalf("leftovers --format %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.format, code, exitChanges, out, errOut)
		}
		golden.Check(t, filepath.Join(pkgDir, "testdata", c.golden), []byte(out))
	}
	if got, want := fmt.Sprint(cs.cf.Counts()), fmt.Sprint(map[string]int{cftest.EpZones: 2, cftest.EpList: 4}); got != want {
		t.Errorf("requests of two runs: %s, want %s (one zone list and two zone reads each)", got, want)
	}
}

// writeTenants writes tenant files (name -> source) into dir/tenants.
func writeTenants(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, "tenants", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLeftoversKnowsACloudflareZoneByItsID: two providers of site.cue
// with tokens of their own may reach one Cloudflare account (a token
// that writes, one that only reads). Their endpoints differ, but a zone
// has one id in the account, so the zone a tenant declares on one is
// declared on the other too: neither reported nor read there.
func TestLeftoversKnowsACloudflareZoneByItsID(t *testing.T) {
	cs := newColdStart(t, "kept.example.net")
	cs.cf.ReadOnlyToken("reader-token")
	t.Setenv("CF_READER_TOKEN", "reader-token")
	if _, err := cs.cf.AddRecord(cs.zoneID, cftest.Record{Name: "www.kept.example.net", Type: "A", Content: "192.0.2.4", TTL: 300, Comment: cloudflare.Marker("kept")}); err != nil {
		t.Fatal(err)
	}
	site := siteSrc(fmt.Sprintf("vaults: bao: {addrs: [%q], mount: \"secret\", token: env: \"VAULT_TOKEN\"}\n", cs.vault.URL)+
		cfProvider("cf", cs.cf.URL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`)+
		cfProvider("reader", cs.cf.URL, `{env: "CF_READER_TOKEN"}`),
		grant{tenant: "kept", domains: []string{"kept.example.net"}, providers: []string{"cf"}})
	dir := writeSpecs(t, site, map[string]string{})
	writeTenants(t, dir, map[string]string{"kept.cue": "package tenants\n\ntenants: kept: {\n\tdomain: \"kept.example.net\"\n\tdns: zones: \"kept.example.net\": {provider: \"cf\", ttl: 300, records: www: A: [\"192.0.2.4\"]}\n}\n"})
	t.Chdir(dir)
	cs.cf.ResetCounts()
	code, out, errOut := cs.site(t, "leftovers")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out, "zone kept.example.net.") {
		t.Errorf("the zone tenant kept declares on provider cf is reported on provider reader, the same account:\n%s", out)
	}
	if got, want := fmt.Sprint(cs.cf.Counts()), fmt.Sprint(map[string]int{cftest.EpZones: 2}); got != want {
		t.Errorf("requests: %s, want %s (one zone list per provider, no zone read)", got, want)
	}
}
