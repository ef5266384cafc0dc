package main

import (
	"cmp"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests hold the site command to its safety principles
// against a real PowerDNS: gates are all or nothing whatever the scope
// flags, foreign and other tenants' data survive, names converge in
// every spelling, and every record type reads back as written.

// zoneSpec is one zone of a tenant in a multiTenant spec.
type zoneSpec struct{ zone, records, keyEnv string }

// multiTenant writes a directory with each tenant's file and the
// site.cue that grants them their zones, all on srv: one provider per
// key variable, named after it.
func multiTenant(t *testing.T, srv *pdnstest.Server, tenants map[string][]zoneSpec) string {
	t.Helper()
	files := map[string]string{}
	var grants []grant
	providers := map[string]bool{}
	for name, zones := range tenants {
		var b strings.Builder
		fmt.Fprintf(&b, "package tenants\n\ntenants: %s: {\n\tdomain: %q\n", name, zones[0].zone)
		g := grant{tenant: name}
		for _, z := range zones {
			env := cmp.Or(z.keyEnv, "PDNS_API_KEY")
			provider := strings.ToLower(env)
			providers[env] = true
			g.domains = append(g.domains, z.zone)
			if !slices.Contains(g.providers, provider) {
				g.providers = append(g.providers, provider)
			}
			fmt.Fprintf(&b, "\tdns: zones: %q: {\n\t\tprovider: %q\n\t\tttl: 300\n\t\trecords: {\n%s\n\t\t}\n\t}\n", z.zone, provider, z.records)
		}
		b.WriteString("}\n")
		files[name+".cue"] = b.String()
		grants = append(grants, g)
	}
	var decls strings.Builder
	for env := range providers {
		decls.WriteString(pdnsProvider(strings.ToLower(env), srv.URL, env, srv.DNSAddr))
	}
	return writeSpecs(t, siteSrc(decls.String(), grants...), files)
}

// TestMissingGateAnywhereChangesNothingAnywhere: two tenants, three
// zones, one gated change in one of them. Every way of running apply
// must refuse with exit 3 before any zone is written, the ungated zones
// included.
func TestMissingGateAnywhereChangesNothingAnywhere(t *testing.T) {
	tests := []struct {
		name string
		args []string
		gate string
		plan bool // apply a plan saved by diff --out
	}{
		{"overwrite, defaults", nil, "GATE-DNS-OVERWRITE", false},
		{"overwrite, --only dns", []string{"--only", "dns"}, "GATE-DNS-OVERWRITE", false},
		{"overwrite, --parallelism 1", []string{"--parallelism", "1"}, "GATE-DNS-OVERWRITE", false},
		{"overwrite, --parallelism 16", []string{"--parallelism", "16"}, "GATE-DNS-OVERWRITE", false},
		{"overwrite, --plan", nil, "GATE-DNS-OVERWRITE", true},
		{"overwrite, the other gate acknowledged", []string{"--ack", "GATE-DNS-DELETE-MANY"}, "GATE-DNS-OVERWRITE", false},
		{"delete-many, --parallelism 16", []string{"--parallelism", "16", "--ack", "GATE-DNS-OVERWRITE"}, "GATE-DNS-DELETE-MANY", false},
		{"delete-many, --plan --only dns", []string{"--only", "dns", "--ack", "GATE-DNS-OVERWRITE"}, "GATE-DNS-DELETE-MANY", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			// a1.test: creates only. a2.test: a foreign A where a CNAME
			// is wanted (GATE-DNS-OVERWRITE). b.test: 10 rrsets of
			// tenant lab, of which the spec keeps 6 (GATE-DNS-DELETE-MANY).
			srv.CreateZone(t, "a1.test.")
			srv.CreateZone(t, "a2.test.", pdnstest.RRset{Name: "v4.a2.test.", Type: "A", TTL: 60, Records: []string{"192.0.2.4"}})
			var live []pdnstest.RRset
			var keep []string
			for i := range 10 {
				name := fmt.Sprintf("h%d.b.test.", i)
				live = append(live, pdnstest.RRset{Name: name, Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
					Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("lab")}}})
				if i < 6 {
					keep = append(keep, fmt.Sprintf("\t\t\th%d: A: [\"192.0.2.1\"]", i))
				}
			}
			srv.CreateZone(t, "b.test.", live...)
			file := multiTenant(t, srv, map[string][]zoneSpec{
				"office1": {{"a1.test", `www: A: ["192.0.2.80"]`, ""}, {"a2.test", `v4: CNAME: "a2.test."`, ""}},
				"lab":     {{"b.test", strings.Join(keep, "\n"), ""}},
			})
			args := append([]string{"apply"}, tt.args...)
			if tt.plan {
				planFile := filepath.Join(t.TempDir(), "plan.json")
				// apply --plan reads the site.cue of where it runs, as the operator runs it.
				t.Chdir(filepath.Dir(file))
				diffArgs := []string{"diff", "--out", planFile}
				if slicesContains(tt.args, "--only") {
					diffArgs = append(diffArgs, "--only", "dns")
				}
				if code, out, errOut := siteRun(t, srv, append(diffArgs, file)...); code != exitOK {
					t.Fatalf("diff exit %d\n%s%s", code, out, errOut)
				}
				args = append(args, "--plan", planFile)
			}
			for _, z := range []string{"a1.test.", "a2.test.", "b.test."} {
				srv.ResetRequests(z)
			}
			code, out, errOut := siteRun(t, srv, append(args, file)...)
			if code != exitGated {
				t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
			}
			if !strings.Contains(errOut, "--ack "+tt.gate) {
				t.Errorf("stderr does not ask for --ack %s:\n%s", tt.gate, errOut)
			}
			for _, z := range []string{"a1.test.", "a2.test.", "b.test."} {
				if got := srv.Requests(z).Writes(); got != 0 {
					t.Errorf("zone %s: got %d writes behind a missing gate, want none", z, got)
				}
			}
			if got := srv.Query(t, "www.a1.test.", "A"); len(got) != 0 {
				t.Errorf("www.a1.test. is served (%q): the ungated zone was applied", got)
			}
		})
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestOtherTenantsDataIsNeverTakenOrDeleted: rrsets marked by another
// tenant (one whose name merely extends ours included) or by nobody
// stay as they are without the gate, and deletes touch only ours.
func TestOtherTenantsDataIsNeverTakenOrDeleted(t *testing.T) {
	mark := func(tenant string) []pdnstest.Comment {
		return []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker(tenant)}}
	}
	tests := []struct {
		name    string
		live    pdnstest.RRset
		records string // the spec's records
		gated   bool   // applying needs GATE-DNS-OVERWRITE
		after   string // what the name serves after apply without the gate ("" = gone)
	}{
		{"identical, another tenant's marker", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: mark("lab")},
			`x: A: ["192.0.2.1"]`, true, "300 192.0.2.1"},
		{"different, another tenant's marker", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: mark("lab")},
			`x: A: ["192.0.2.2"]`, true, "300 192.0.2.1"},
		{"not wanted, a tenant whose name extends ours", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: mark("office10")},
			`y: A: ["192.0.2.9"]`, false, "300 192.0.2.1"},
		{"not wanted, another tenant's marker", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: mark("lab")},
			`y: A: ["192.0.2.9"]`, false, "300 192.0.2.1"},
		{"not wanted, a comment by a human only", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
			Comments: []pdnstest.Comment{{Account: "alice", Content: powerdns.Marker("office1")}}},
			`y: A: ["192.0.2.9"]`, false, "300 192.0.2.1"},
		{"identical, unmarked: adopted without a gate", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
			`x: A: ["192.0.2.1"]`, false, "300 192.0.2.1"},
		{"not wanted, ours: deleted", pdnstest.RRset{Name: "x.own.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: mark("office1")},
			`y: A: ["192.0.2.9"]`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, "own.test.", tt.live)
			file := tenantFile(t, srv, "own.test", tt.records)
			srv.ResetRequests("own.test.")
			// Deleting the zone's only rrset of ours needs
			// GATE-DNS-DELETE-MANY; acknowledged here, it leaves the
			// question this test asks to GATE-DNS-OVERWRITE: whose
			// rrsets may be taken or deleted at all.
			code, out, errOut := siteRun(t, srv, "apply", "--ack", "GATE-DNS-DELETE-MANY", "--yes", file)
			if tt.gated {
				if code != exitGated {
					t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
				}
				if got := srv.Requests("own.test.").Writes(); got != 0 {
					t.Errorf("got %d writes behind a missing gate, want none", got)
				}
			} else if code != exitOK {
				t.Fatalf("apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			got := strings.Join(srv.Query(t, "x.own.test.", "A"), ",")
			if got != tt.after {
				t.Errorf("x.own.test. A: got %q, want %q", got, tt.after)
			}
			if tt.gated {
				return
			}
			if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file); code != exitOK {
				t.Errorf("diff after apply: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

// TestNameSpellingsConverge: the spec is rewritten in another spelling
// of the same names (relative, absolute, upper case, U-labels); the
// second spec must plan nothing, neither a write nor a delete.
func TestNameSpellingsConverge(t *testing.T) {
	tests := []struct {
		name          string
		zone          string // as the spec writes it
		live          string // the zone as PowerDNS names it
		first, second string
		query         string // a name the records must be served at
	}{
		{"relative then absolute", "sp.test", "sp.test.", `www: A: ["192.0.2.1"]`, `"www.sp.test.": A: ["192.0.2.1"]`, "www.sp.test."},
		{"lower then upper case", "sp.test", "sp.test.", `www: A: ["192.0.2.1"]`, `"WWW": A: ["192.0.2.1"]`, "www.sp.test."},
		{"U-label then A-label", "sp.test", "sp.test.", `"bücher": A: ["192.0.2.1"]`, `"xn--bcher-kva": A: ["192.0.2.1"]`, "xn--bcher-kva.sp.test."},
		{"U-label zone", "bücher.test", "xn--bcher-kva.test.", `"münchen": A: ["192.0.2.1"]`, `"xn--mnchen-3ya.xn--bcher-kva.test.": A: ["192.0.2.1"]`, "xn--mnchen-3ya.xn--bcher-kva.test."},
		{"U-label CNAME target", "sp.test", "sp.test.", `www: CNAME: "bücher.example."`, `www: CNAME: "xn--bcher-kva.example."`, "www.sp.test."},
		{"wildcard and underscore names", "sp.test", "sp.test.", "\"*.apps\": A: [\"192.0.2.1\"]\n\"_dmarc\": TXT: [\"v=DMARC1; p=none\"]",
			"\"*.APPS.sp.test.\": A: [\"192.0.2.1\"]\n\"_DMARC.sp.test.\": TXT: [\"v=DMARC1; p=none\"]", "x.apps.sp.test."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, tt.live)
			file := tenantFile(t, srv, tt.zone, tt.first)
			if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
				t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, spec := range []string{tt.first, tt.second} {
				file := tenantFile(t, srv, tt.zone, spec)
				srv.ResetRequests(tt.live)
				code, out, errOut := siteRun(t, srv, "apply", file)
				if code != exitOK || !strings.Contains(out, "No changes.") {
					t.Errorf("apply of\n%s\nexit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", spec, code, out, errOut)
				}
				if got := srv.Requests(tt.live).Writes(); got != 0 {
					t.Errorf("got %d writes for a spelling of the same names, want none", got)
				}
			}
			typ := "A"
			if strings.Contains(tt.first, "CNAME") {
				typ = "CNAME"
			}
			if got := srv.Query(t, tt.query, typ); len(got) != 1 {
				t.Errorf("%s %s: got %q, want one record served", tt.query, typ, got)
			}
		})
	}
}

// TestEveryRecordTypeIsIdempotent applies each record type, TXT at its
// awkward edges included, then expects diff to say No changes: a value
// that does not read back as written would be rewritten on every run.
func TestEveryRecordTypeIsIdempotent(t *testing.T) {
	long := strings.Repeat("k", 300)
	tests := []struct{ name, records string }{
		{"A and AAAA", `a: A: ["192.0.2.1", "192.0.2.10"]
			a: AAAA: ["2001:DB8::1", "2001:db8:0:0:0:0:0:2"]`},
		{"CNAME", `c: CNAME: "Target.Example.ORG."`},
		{"TXT with quotes, backslashes and semicolons", `t: TXT: ["v=DKIM1; k=rsa; p=\"quoted\"", "back\\slash;"]`},
		{"TXT longer than 255 octets", `t: TXT: ["` + long + `"]`},
		{"TXT with unicode", `t: TXT: ["café ☃ 日本"]`},
		{"TXT empty", `t: TXT: [""]`},
		{"CAA with parameters", `"@": CAA: [{flags: 0, tag: "issue", value: "letsencrypt.org; validationmethods=dns-01"}, {flags: 0, tag: "issuewild", value: ";"}]`},
		{"null MX and SRV to .", `nomail: MX: [{priority: 0, host: "."}]
			"_x._tcp": SRV: [{priority: 0, weight: 0, port: 0, target: "."}]`},
		{"TTLs at their edges", `one: {ttl: 1, A: ["192.0.2.1"]}
			week: {ttl: 604800, A: ["192.0.2.2"]}`},
		{"MX", `"@": MX: [{priority: 10, host: "MX1.example.org."}, {priority: 0, host: "mx0.example.org."}]`},
		{"SRV", `"_sip._tcp": SRV: [{priority: 10, weight: 5, port: 5060, target: "sip.example.org."}]`},
		{"CAA", `"@": CAA: [{flags: 0, tag: "issue", value: "letsencrypt.org"}, {flags: 128, tag: "iodef", value: "mailto:sec@example.org"}]`},
		{"NS delegation", `sub: NS: ["ns1.example.org.", "NS2.example.org."]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, "types.test.")
			file := tenantFile(t, srv, "types.test", tt.records)
			if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
				t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			srv.ResetRequests("types.test.")
			code, out, errOut := siteRun(t, srv, "apply", file)
			if code != exitOK || !strings.Contains(out, "No changes.") {
				t.Errorf("second apply exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if got := srv.Requests("types.test.").Writes(); got != 0 {
				t.Errorf("second apply made %d writes, want none", got)
			}
		})
	}
}

// TestUnobservedZonePlansNoDeletes: one zone cannot be read (the API
// fails, or the server is not there); its records no longer in the spec
// must not be deleted, and apply must change nothing anywhere, while
// diff still shows the zone it could read.
func TestUnobservedZonePlansNoDeletes(t *testing.T) {
	tests := []struct {
		name string
		fail func(srv *pdnstest.Server, file string) string // breaks observation of down.test.; returns the file to use
	}{
		{"the API answers 500 for the zone", func(srv *pdnstest.Server, file string) string {
			srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
				return 500, `{"error":"backend down"}`, strings.Contains(r.URL.Path, "down.test")
			})
			return file
		}},
		{"the API answers 401 for the zone", func(srv *pdnstest.Server, file string) string {
			srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
				return 401, `Unauthorized`, strings.Contains(r.URL.Path, "down.test")
			})
			return file
		}},
		{"the API key is unset", func(srv *pdnstest.Server, file string) string {
			t.Setenv("DOWN_KEY", "")
			return file
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			t.Setenv("DOWN_KEY", srv.APIKey)
			srv.CreateZone(t, "up.test.")
			srv.CreateZone(t, "down.test.")
			file := multiTenant(t, srv, map[string][]zoneSpec{
				"office1": {{"down.test", `old: A: ["192.0.2.1"]
			keep: A: ["192.0.2.2"]`, "DOWN_KEY"}},
				"lab": {{"up.test", `www: A: ["192.0.2.3"]`, ""}},
			})
			if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
				t.Fatalf("first apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			file = multiTenant(t, srv, map[string][]zoneSpec{
				"office1": {{"down.test", `keep: A: ["192.0.2.2"]`, "DOWN_KEY"}},
				"lab":     {{"up.test", `www: A: ["192.0.2.4"]`, ""}},
			})
			file = tt.fail(srv, file)
			srv.ResetRequests("down.test.")
			srv.ResetRequests("up.test.")
			code, out, errOut := siteRun(t, srv, "diff", file)
			if code != exitError {
				t.Errorf("diff exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
			}
			if strings.Contains(out, "old.down.test") {
				t.Errorf("diff plans something for old.down.test. it could not observe:\n%s", out)
			}
			if !strings.Contains(out, "# dns/up.test.") || !strings.Contains(out, "www A") {
				t.Errorf("diff does not show the independent zone's change:\n%s", out)
			}
			code, out, errOut = siteRun(t, srv, "apply", file)
			if code != exitError {
				t.Errorf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
			}
			for _, z := range []string{"down.test.", "up.test."} {
				if got := srv.Requests(z).Writes(); got != 0 {
					t.Errorf("zone %s: got %d writes, want none", z, got)
				}
			}
			if got := srv.Query(t, "old.down.test.", "A"); len(got) != 1 {
				t.Errorf("old.down.test. A: got %q, want it still served", got)
			}
		})
	}
}
