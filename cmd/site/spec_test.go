package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The helpers in this file write specs as an operator and a tenant do:
// the operator's site.cue names every endpoint (the tests' servers on
// loopback) and credential, and grants each tenant its domains,
// providers and hosts; the tenant files beside it name providers and
// hosts only.

// grant is one tenant's entry in site.cue.
type grant struct {
	tenant    string
	domains   []string
	providers []string
	hosts     []string
}

func (g grant) cue() string {
	list := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = fmt.Sprintf("%q", x)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprintf("tenants: %s: {domains: %s, providers: %s, hosts: %s}\n", g.tenant, list(g.domains), list(g.providers), list(g.hosts))
}

// siteSrc is a site.cue: decls (vaults, providers, hosts) as written,
// then the grants.
func siteSrc(decls string, grants ...grant) string {
	var b strings.Builder
	b.WriteString("package site\n\n" + decls + "\n")
	for _, g := range grants {
		b.WriteString(g.cue())
	}
	return b.String()
}

// pdnsProvider declares a PowerDNS provider called name at url, its key
// in $keyEnv, verified over DNS at dns.
func pdnsProvider(name, url, keyEnv, dns string) string {
	return fmt.Sprintf("providers: %s: powerdns: {url: %q, api_key: env: %q, dns: %q}\n", name, url, keyEnv, dns)
}

// cfProvider declares a Cloudflare provider called name at the fake API
// url; cred is its token, as CUE ({env: ...} or {vault: ...}).
func cfProvider(name, url, cred string) string {
	return fmt.Sprintf("providers: %s: cloudflare: {token: %s, api_url: %q}\n", name, cred, url)
}

// exportedSite is the operator's file made of the lines site export
// printed on stderr for it.
func exportedSite(t *testing.T, stderr string) string {
	t.Helper()
	_, rest, ok := strings.Cut(stderr, "the operator's site.cue needs these lines for it:\n\n")
	lines, _, ok2 := strings.Cut(rest, "\n\n")
	if !ok || !ok2 {
		t.Fatalf("export printed no site.cue lines:\n%s", stderr)
	}
	return "package site\n\n" + lines + "\n"
}

// writeSpecs writes site.cue and the tenant files (file name -> source)
// into a new directory and returns it. A site.cue that names no lock
// store keeps its locks in a directory of the test's own (locks: dir):
// a lock a killed run of one test left would otherwise hold up the
// next test's apply of a tenant of the same name.
func writeSpecs(t *testing.T, site string, tenants map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if !strings.Contains(site, "\nlocks:") {
		site += fmt.Sprintf("locks: dir: %q\n", filepath.Join(t.TempDir(), "locks"))
	}
	tenants["site.cue"] = site
	for name, src := range tenants {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeSpec writes site.cue and one tenant file, and returns the tenant
// file's path.
func writeSpec(t *testing.T, site, name, src string) string {
	t.Helper()
	return filepath.Join(writeSpecs(t, site, map[string]string{name: src}), name)
}
