package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// TestSJCTenantAppliesAgainstFakes applies the shipped tenants/sjc.cue,
// cold start included, against the fakes. Its store addresses
// (https://keys.sjc.example.net, http://10.77.0.13:8200) must not be
// dialled from a test, so SITE_VAULT_ADDRS replaces them with a closed
// loopback port (the address that does not answer yet) and the fake
// store; SITE_CLOUDFLARE_API_URL points the zone, which names no
// api_url, at the fake Cloudflare. The network and VM phases need
// qemu:///system, so only the DNS phase (and the secret step it needs)
// runs here.
func TestSJCTenantAppliesAgainstFakes(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	t.Setenv("SITE_VAULT_ADDRS", closedPort(t)+","+cs.vault.URL)
	t.Setenv(cloudflare.EnvAPIURL, cs.cf.URL)
	sjc := repoFile("tenants/sjc.cue")

	code, out, errOut := cs.site(t, "apply", "--only", "dns", sjc)
	if code != exitOK {
		t.Fatalf("apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := []string{
		"*.apps.sjc.example.net A 203.0.113.11",
		"forge.sjc.example.net A 203.0.113.20",
		"keys.sjc.example.net A 203.0.113.10",
		"sjc.example.net MX mx.example.org",
		`sjc.example.net TXT "v=spf1 mx -all"`,
		"vault.sjc.example.net A 203.0.113.10",
		"www.sjc.example.net CNAME forge.sjc.example.net",
	}
	if got := cs.records(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("zone:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	code, out, errOut = cs.site(t, "diff", "--only", "dns", "--detailed-exitcode", sjc)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Errorf("second diff: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(cs.outputs.String(), cfToken) || strings.Contains(cs.outputs.String(), vaultToken) {
		t.Errorf("a secret value appears in the output")
	}
}

// TestExportCloudflare exports a live zone, then checks that the spec
// passes vet and that diff says No changes (export --adopt marked the records).
func TestExportCloudflare(t *testing.T) {
	cs := newColdStart(t, "web.example.net")
	t.Setenv("CF_TOKEN", cfToken)
	for _, r := range []cftest.Record{
		{Name: "web.example.net", Type: "A", Content: "192.0.2.1", TTL: 300},
		{Name: "web.example.net", Type: "MX", Content: "mx1.example.org", Priority: u16(10), TTL: 300},
		{Name: "web.example.net", Type: "MX", Content: "mx2.example.org", Priority: u16(20), TTL: 300},
		{Name: "web.example.net", Type: "TXT", Content: `"v=spf1 -all"`, TTL: 300},
		{Name: "web.example.net", Type: "CAA", Data: map[string]any{"flags": 0, "tag": "issue", "value": "letsencrypt.org"}, TTL: 300},
		{Name: "www.web.example.net", Type: "CNAME", Content: "web.example.net", TTL: 300, Comment: "made by hand"},
		{Name: "_sip._tcp.web.example.net", Type: "SRV", Data: map[string]any{"priority": 10, "weight": 5, "port": 5060, "target": "sip.example.org"}, TTL: 3600},
		{Name: "sub.web.example.net", Type: "NS", Content: "ns1.example.org", TTL: 3600},
		{Name: "v6.web.example.net", Type: "AAAA", Content: "2001:db8::1", TTL: 1},
		{Name: "cdn.web.example.net", Type: "A", Content: "192.0.2.9", TTL: 1, Proxied: true},
		// Left out, each for its own reason:
		{Name: "half.web.example.net", Type: "A", Content: "192.0.2.8", TTL: 1, Proxied: true},
		{Name: "half.web.example.net", Type: "TXT", Content: `"x"`, TTL: 1},
		// Proxied reports TTL 1, so the TTLs differ too; the proxy is why.
		{Name: "split.web.example.net", Type: "A", Content: "192.0.2.12", TTL: 1, Proxied: true},
		{Name: "split.web.example.net", Type: "TXT", Content: `"y"`, TTL: 300},
		// An RRset whose records disagree on the TTL, which DNS cannot serve.
		{Name: "twottl.web.example.net", Type: "A", Content: "192.0.2.13", TTL: 300},
		{Name: "twottl.web.example.net", Type: "A", Content: "192.0.2.14", TTL: 600},
		// Kept (issue 28): SMIMEA is a type of the language now, and a
		// TTL per type at one name is said with ttls.
		{Name: "_25._tcp.web.example.net", Type: "SMIMEA", Data: map[string]any{"usage": 3, "selector": 1, "matching_type": 1, "certificate": strings.Repeat("ab", 32)}, TTL: 300},
		{Name: "mixed.web.example.net", Type: "A", Content: "192.0.2.10", TTL: 300},
		{Name: "mixed.web.example.net", Type: "TXT", Content: `"x"`, TTL: 600},
		{Name: "theirs.web.example.net", Type: "A", Content: "192.0.2.11", TTL: 300, Comment: cloudflare.Marker("other")},
	} {
		if _, err := cs.cf.AddRecord(cs.zoneID, r); err != nil {
			t.Fatalf("AddRecord %+v: %v", r, err)
		}
	}
	file := filepath.Join(t.TempDir(), "web.cue")
	code, out, errOut := cs.site(t, "export", "cloudflare", "--zone", "web.example.net", "--tenant", "web",
		"--token-env", "CF_TOKEN", "--api-url", cs.cf.URL, "--out", file, "--adopt")
	if code != exitOK {
		t.Fatalf("export exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"half.web.example.net.: some of its records are proxied and some not", "split.web.example.net.: some of its records are proxied and some not", "twottl.web.example.net. A: its records have 2 different TTLs", "theirs.web.example.net. A 192.0.2.11: owned by site tenant other"} {
		if !strings.Contains(errOut, "left out: "+want) {
			t.Errorf("export did not report %q:\n%s", want, errOut)
		}
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	site := exportedSite(t, errOut)
	if strings.Contains(string(src)+site, cfToken) || strings.Contains(string(src), "CF_TOKEN") || !strings.Contains(site, `env: "CF_TOKEN"`) {
		t.Errorf("site.cue must name the token's variable, never its value, and the tenant's file neither:\n%s\n%s", src, site)
	}
	// The operator adds the lines export printed to site.cue.
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "site.cue"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cs.site(t, "vet", file); code != exitOK {
		t.Fatalf("vet of the exported spec: exit %d\n%s%s\nspec:\n%s", code, out, errOut, src)
	}
	code, out, errOut = cs.site(t, "diff", "--detailed-exitcode", file)
	if !strings.Contains(string(src), "ttls: TXT: 600") {
		t.Errorf("the name with a TTL per type was not exported with ttls:\n%s", src)
	}
	if !strings.Contains(string(src), "cdn: {\n\t\t\t\tproxied: true") {
		t.Errorf("the proxied name was not exported with proxied: true:\n%s", src)
	}
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Errorf("diff of the exported spec: exit %d, want 0 and No changes.\n%s%s\nspec:\n%s", code, out, errOut, src)
	}
	for _, r := range cs.cf.Records(cs.zoneID) {
		marked := r.Comment == cloudflare.Marker("web")
		skipped := strings.HasPrefix(r.Name, "half.") || strings.HasPrefix(r.Name, "split.") || strings.HasPrefix(r.Name, "twottl.") || strings.HasPrefix(r.Name, "theirs.")
		if marked == skipped {
			t.Errorf("%s %s: comment %q (left out: %v)", r.Name, r.Type, r.Comment, skipped)
		}
	}
	// Once site.cue declares the account, --provider names it as
	// disown's does: its token and api_url come from there.
	t.Chdir(filepath.Dir(file))
	code, out, errOut = cs.site(t, "export", "cloudflare", "--provider", "cloudflare", "--zone", "web.example.net", "--tenant", "web")
	if code != exitOK || !strings.Contains(errOut, "grants tenant web zone web.example.net. on provider cloudflare already") || !strings.Contains(out, `provider: "cloudflare"`) {
		t.Errorf("export --provider cloudflare: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func u16(n uint16) *uint16 { return &n }

// TestCloudflareReadBack applies tenants/sjc.cue against the fake
// Cloudflare twice: as it is, the report says how each changed record is
// served and counts the read-back as a read; with the fake silently
// clamping a TTL, apply fails (exit 1) and names the record and what
// differs.
func TestCloudflareReadBack(t *testing.T) {
	sjc := repoFile("tenants/sjc.cue")
	t.Run("as written", func(t *testing.T) {
		cs := newColdStart(t, "sjc.example.net")
		t.Setenv("SITE_VAULT_ADDRS", closedPort(t)+","+cs.vault.URL)
		t.Setenv(cloudflare.EnvAPIURL, cs.cf.URL)
		code, out, errOut := cs.site(t, "apply", "--only", "dns", sjc)
		if code != exitOK {
			t.Fatalf("apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		for _, want := range []string{"read back 7 changed RRsets in 1 list request", "DNS only: ", "keys.sjc.example.net. A"} {
			if !strings.Contains(out, want) {
				t.Errorf("report does not say %q:\n%s", want, out)
			}
		}
	})
	t.Run("altered by the provider", func(t *testing.T) {
		cs := newColdStart(t, "sjc.example.net")
		t.Setenv("SITE_VAULT_ADDRS", closedPort(t)+","+cs.vault.URL)
		t.Setenv(cloudflare.EnvAPIURL, cs.cf.URL)
		cs.cf.SetAlter(func(r *cftest.Record) {
			if r.Name == "keys.sjc.example.net" {
				r.TTL = 3600
			}
		})
		code, out, errOut := cs.site(t, "apply", "--only", "dns", sjc)
		if code != exitError {
			t.Errorf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
		}
		want := "problem: keys.sjc.example.net. A: Cloudflare changed what was written: 203.0.113.10 written with TTL 300, listed with TTL 3600"
		if !strings.Contains(out, want) {
			t.Errorf("report does not say %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	})
}
