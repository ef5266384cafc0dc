package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// cfTenant writes a tenant whose zone zone lives on the fake Cloudflare
// at url, the token in $CF_TOKEN, and the site.cue that grants it.
func cfTenant(t *testing.T, tenant, zone, url, records string) string {
	t.Helper()
	site := siteSrc(cfProvider("cf", url, `{env: "CF_TOKEN"}`), grant{tenant: tenant, domains: []string{zone}, providers: []string{"cf"}})
	return writeSpec(t, site, tenant+".cue", `package tenants

tenants: `+tenant+`: {
	domain: "`+zone+`"
	dns: zones: "`+zone+`": {
		provider: "cf"
		ttl: 300
		records: {
`+records+`
		}
	}
}
`)
}

// TestCloudflareSpellingsAndOwnersThroughCLI: on Cloudflare, names in
// any spelling converge to No changes, and another tenant's identical
// record is taken only behind GATE-DNS-OVERWRITE (exit 3, nothing sent).
func TestCloudflareSpellingsAndOwnersThroughCLI(t *testing.T) {
	tests := []struct {
		name          string
		zone          string
		existing      []cftest.Record
		first, second string
		gated         bool
	}{
		{"U-label then A-label", "cf.example.net", nil,
			`"bücher": A: ["192.0.2.1"]`, `"xn--bcher-kva.cf.example.net.": A: ["192.0.2.1"]`, false},
		{"U-label zone", "bücher.example.net", nil,
			`"münchen": A: ["192.0.2.1"]`, `"XN--MNCHEN-3YA": A: ["192.0.2.1"]`, false},
		{"wildcard and underscore", "cf.example.net", nil,
			"\"*.apps\": A: [\"192.0.2.1\"]\n\"_dmarc\": TXT: [\"v=DMARC1; p=none\"]", "\"*.Apps.cf.example.net.\": A: [\"192.0.2.1\"]\n\"_DMARC\": TXT: [\"v=DMARC1; p=none\"]", false},
		{"another tenant's identical record", "cf.example.net",
			[]cftest.Record{{Name: "www.cf.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: cloudflare.Marker("lab")}},
			`www: A: ["192.0.2.1"]`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newColdStart(t, strings.ReplaceAll(strings.ReplaceAll(tt.zone, "bücher", "xn--bcher-kva"), "münchen", "xn--mnchen-3ya"))
			t.Setenv("CF_TOKEN", cfToken)
			for _, r := range tt.existing {
				if _, err := cs.cf.AddRecord(cs.zoneID, r); err != nil {
					t.Fatal(err)
				}
			}
			file := cfTenant(t, "office1", tt.zone, cs.cf.URL, tt.first)
			cs.cf.ResetCounts()
			code, out, errOut := cs.site(t, "apply", file)
			if tt.gated {
				if code != exitGated || !strings.Contains(errOut, "--ack GATE-DNS-OVERWRITE") {
					t.Fatalf("apply exit %d, want %d asking for GATE-DNS-OVERWRITE\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
				}
				if n := cs.cf.Count(cftest.EpBatch); n != 0 {
					t.Errorf("got %d batch requests behind a missing gate, want none", n)
				}
				if got := cs.cf.Records(cs.zoneID)[0].Comment; got != cloudflare.Marker("lab") {
					t.Errorf("the other tenant's marker became %q", got)
				}
				return
			}
			if code != exitOK {
				t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, spec := range []string{tt.first, tt.second} {
				file := cfTenant(t, "office1", tt.zone, cs.cf.URL, spec)
				cs.cf.ResetCounts()
				code, out, errOut := cs.site(t, "apply", file)
				if code != exitOK || !strings.Contains(out, "No changes.") {
					t.Errorf("apply of\n%s\nexit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", spec, code, out, errOut)
				}
				if n := cs.cf.Count(cftest.EpBatch); n != 0 {
					t.Errorf("got %d batch requests for a spelling of the same names, want none", n)
				}
			}
			if strings.Contains(cs.outputs.String(), cfToken) {
				t.Errorf("the token appears in the output")
			}
		})
	}
}

// TestMissingSecretPlansNoDeletes: the store (a real Vault) answers, but
// the secret the zone's token lives in is gone (no such key, a deleted
// or destroyed latest version, an empty key). The zone is not observed:
// its records no longer in the spec stay, with or without
// GATE-SECRET-UNREACHABLE acknowledged.
func TestMissingSecretPlansNoDeletes(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(cs *coldStart)
	}{
		{"the key is missing", func(cs *coldStart) {
			cs.vault.Put("secret", "dns/cloudflare", map[string]any{"other": "x"})
		}},
		{"the latest version is deleted", func(cs *coldStart) {
			cs.vault.SoftDelete("secret", "dns/cloudflare")
		}},
		{"the latest version is destroyed", func(cs *coldStart) {
			cs.vault.Destroy("secret", "dns/cloudflare")
		}},
		{"the key is empty", func(cs *coldStart) {
			cs.vault.Put("secret", "dns/cloudflare", map[string]any{"token": ""})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newColdStart(t, "sjc.example.net")
			file := sjcFile(t, sjcLike(), []string{cs.vault.URL}, cs.cf.URL)
			if code, out, errOut := cs.site(t, "apply", file); code != exitOK {
				t.Fatalf("first apply exit %d\n%s%s", code, out, errOut)
			}
			before := cs.records()
			// The spec drops every record; the secret goes missing.
			src := sjcLike()
			i, j := strings.Index(src, "\t\trecords: {"), strings.Index(src, "\t\t}\n\t}\n}")
			file = sjcFile(t, src[:i]+"\t\trecords: {\n"+src[j:], []string{cs.vault.URL}, cs.cf.URL)
			tt.breakIt(cs)
			cs.cf.ResetCounts()
			for _, args := range [][]string{{"diff", file}, {"apply", file}, {"apply", "--ack", "GATE-SECRET-UNREACHABLE", "--ack", "GATE-DNS-DELETE-MANY", file}} {
				code, out, errOut := cs.site(t, args...)
				// Acknowledged, the gate may defer the zone (exit 0);
				// otherwise the run must refuse.
				if code == exitOK && len(args) == 2 {
					t.Errorf("site %s: exit 0, want a refusal: the zone's token could not be read\n%s%s", strings.Join(args, " "), out, errOut)
				}
				if strings.Contains(out, "- dns/") {
					t.Errorf("site %s plans deletes in a zone it could not observe:\n%s", strings.Join(args, " "), out)
				}
			}
			if n := cs.cf.Count(cftest.EpBatch); n != 0 {
				t.Errorf("got %d batch requests, want none", n)
			}
			if got := cs.records(); strings.Join(got, "\n") != strings.Join(before, "\n") {
				t.Errorf("zone changed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(before, "\n"))
			}
		})
	}
}
