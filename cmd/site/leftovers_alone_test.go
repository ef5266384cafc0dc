package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeftoversWithEveryTenantRemoved: once every tenant file is gone,
// the case where leftovers matters most, site leftovers runs on
// site.cue alone and says so, both when ./tenants is left empty and
// when it went with its last file (git keeps no empty directory):
// every zone is then undeclared. site diff still refuses to run on no
// tenant file, and so does leftovers from a directory that is not
// site.cue's (./tenants may be elsewhere there). A tenant site.cue
// still grants is not judged gone for having no file: its zone is
// said not judged, with no command, and the run exits 1.
func TestLeftoversWithEveryTenantRemoved(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "gone.test.", marked("gone", "www.gone.test.", "192.0.2.1"))
	dir := writeSpecs(t, siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)), map[string]string{})
	const alone = "No tenant file was loaded (./tenants holds none): what site marked is judged against site.cue alone; what a tenant it still grants marked is not judged.\n"
	t.Chdir(dir)
	for _, c := range []struct {
		name  string
		setUp func() error
	}{
		{"tenants left empty", func() error { return os.Mkdir("tenants", 0o755) }},
		{"tenants gone", func() error { return os.Remove("tenants") }},
	} {
		if err := c.setUp(); err != nil {
			t.Fatal(err)
		}
		srv.ResetRequests("")
		srv.ResetRequests("gone.test.")
		code, out, errOut := siteRun(t, srv, "leftovers")
		if code != exitChanges || !strings.HasPrefix(out, alone) || !strings.Contains(out, "zone gone.test.: no tenant declares it") {
			t.Errorf("%s: leftovers: exit %d, want %d, a first line %q and gone.test.\nstdout:\n%s\nstderr:\n%s", c.name, code, exitChanges, alone, out, errOut)
		}
		if list, zone := srv.Requests(""), srv.Requests("gone.test."); list.GET != 1 || zone.GET != 1 || list.Writes()+zone.Writes() != 0 {
			t.Errorf("%s: requests: list %+v, zone %+v; want one GET each and no write", c.name, list, zone)
		}
		code, out, errOut = siteRun(t, srv, "leftovers", "--format", "json")
		if code != exitChanges || !strings.Contains(out, `"no_tenant_file": true`) {
			t.Errorf("%s: leftovers --format json: exit %d, want %d and \"no_tenant_file\": true\nstdout:\n%s\nstderr:\n%s", c.name, code, exitChanges, out, errOut)
		}
		if code, out, errOut := siteRun(t, srv, "diff"); code != exitError {
			t.Errorf("%s: diff: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.name, code, exitError, out, errOut)
		}
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	if code, out, errOut := siteRun(t, srv, "leftovers"); code != exitError || !strings.Contains(errOut, "no tenants directory here") {
		t.Errorf("from a directory site.cue is not in: exit %d, want %d and the missing ./tenants said\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	t.Chdir(dir)
	srv.CreateZone(t, "team.test.", marked("team", "www.team.test.", "192.0.2.2"))
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "team", domains: []string{"team.test"}, providers: []string{"pdns"}})), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := siteRun(t, srv, "leftovers")
	if code != exitError || !strings.HasPrefix(out, alone) || strings.Contains(out, "disown zone team.test") ||
		!strings.Contains(out, "zone team.test.: not judged: tenant team is granted in site.cue, but its file was not loaded") ||
		!strings.Contains(out, "zone gone.test.: no tenant declares it") {
		t.Errorf("team still granted: exit %d, want %d, gone.test. left over and team.test. not judged\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
}

// TestLeftoversNamesTheTenantFilesItLoads: with a tenant file loaded,
// the report has no such line, and the JSON report no
// "no_tenant_file".
func TestLeftoversNamesTheTenantFilesItLoads(t *testing.T) {
	srv := pdnsEnv(t)
	dir := writeSpecs(t, siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{"lab.example.test"}, providers: []string{"pdns"}}), map[string]string{})
	writeTenants(t, dir, map[string]string{"lab.cue": "package tenants\n\ntenants: lab: domain: \"lab.example.test\"\n"})
	t.Chdir(dir)
	for _, format := range []string{"text", "json"} {
		code, out, errOut := siteRun(t, srv, "leftovers", "--format", format)
		if code != exitOK || strings.Contains(out, "No tenant file") || strings.Contains(out, "no_tenant_file") {
			t.Errorf("--format %s: exit %d, want 0 and no word of no tenant file\nstdout:\n%s\nstderr:\n%s", format, code, out, errOut)
		}
	}
}
