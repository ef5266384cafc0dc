package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
)

// snapshotExporter hands Read a snapshot as a backend would.
type snapshotExporter struct{ snap model.ZoneSnapshot }

func (x snapshotExporter) Export(context.Context, *model.Zone) (*model.ZoneSnapshot, error) {
	s := x.snap
	return &s, nil
}

func (x snapshotExporter) MarkOwned(context.Context, *model.Zone) (int, error) {
	return 0, nil
}

// TestReadLeavesOutWhatTheLanguageCannotSay: an RRset a backend hands
// over that the language cannot say is left out and listed, and the rest
// exported; one such record failed the whole export.
func TestReadLeavesOutWhatTheLanguageCannotSay(t *testing.T) {
	const zone = "example.test."
	mx := rr(zone, "MX", 300, "10 mx.example.org.")
	mx.Proxied = true // Cloudflare proxies no MX
	x := snapshotExporter{model.ZoneSnapshot{RRsets: []*model.RRset{
		ptr(rr("www."+zone, "A", 300, "192.0.2.1")),
		ptr(mx),
	}}}
	a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone,
		Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Skipped) != 1 || !strings.Contains(a.Skipped[0], "example.test. MX: is proxied") || !strings.Contains(a.Skipped[0], "left as it is") {
		t.Errorf("skipped %q, want the proxied MX left out", a.Skipped)
	}
	if !strings.Contains(string(a.Source), `www: A: ["192.0.2.1"]`) || strings.Contains(string(a.Source), "MX") {
		t.Errorf("the spec should hold www and not the MX:\n%s", a.Source)
	}
}

func ptr(r model.RRset) *model.RRset { return &r }

// TestReadLeavesOutAnotherTenantsDelegatedNames: exporting a parent zone
// whose site.cue delegates shop.example.test. to another tenant keeps
// the delegation (NS and DS there, glue) and leaves out, listed, what
// answers for the shop's names: the spec passed the export's own vet but
// not site vet with the real site.cue, and --adopt would have marked the
// shop's records as the parent's.
func TestReadLeavesOutAnotherTenantsDelegatedNames(t *testing.T) {
	const zone = "example.test."
	site := []byte(`package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	acme: {domains: ["example.test"], providers: ["pdns"]}
	shop: {delegate: ["shop.example.test"], providers: ["pdns"]}
}
`)
	read, err := compiler.ReadOperatorFile("site.cue", site)
	if err != nil {
		t.Fatal(err)
	}
	x := snapshotExporter{model.ZoneSnapshot{RRsets: []*model.RRset{
		ptr(rr("www."+zone, "A", 300, "192.0.2.1")),
		ptr(rr("shop."+zone, "NS", 300, "ns1.shop."+zone)),
		ptr(rr("ns1.shop."+zone, "A", 300, "192.0.2.53")),
		ptr(rr("www.shop."+zone, "A", 300, "203.0.113.66")),
	}}}
	a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone, Operator: read,
		Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Skipped) != 1 || !strings.Contains(a.Skipped[0], "www.shop.example.test. A lies in shop.example.test., which site.cue grants to tenant shop") {
		t.Errorf("skipped %q, want www.shop left out", a.Skipped)
	}
	if len(a.Zone.RRsets) != 3 || strings.Contains(string(a.Source), "203.0.113.66") {
		t.Errorf("kept %d RRsets, want www, the delegation and its glue:\n%s", len(a.Zone.RRsets), a.Source)
	}
	if err := Vet("site.cue", site, "acme.cue", a.Source); err != nil {
		t.Errorf("the spec does not pass site vet with the real site.cue: %v\n%s", err, a.Source)
	}
}

// TestReadLeavesOutWhatCoversAnotherTenantsNames: a wildcard or a DNAME
// of the exported zone that answers for a name site.cue grants another
// tenant below it (a wildcard while the zone does not delegate that
// name) is left out and listed, by the rule site vet refuses them with
// (TestTrust_DelegatedNamesCovered): the export kept them, and the spec
// it wrote then failed site vet with the real site.cue.
func TestReadLeavesOutWhatCoversAnotherTenantsNames(t *testing.T) {
	const zone = "example.test."
	for _, tc := range []struct {
		name     string
		delegate string
		rrsets   []model.RRset
		skipped  []string // what each skipped line says, in order
	}{
		{name: "wildcard at the apex", delegate: "shop.example.test",
			rrsets:  []model.RRset{rr("www."+zone, "A", 300, "192.0.2.1"), rr("*."+zone, "A", 300, "192.0.2.9")},
			skipped: []string{"*.example.test. A: wildcard *.example.test. answers for shop.example.test., which site.cue grants to another tenant, while this zone does not delegate it"}},
		{name: "wildcard above the granted name", delegate: "x.shop.example.test",
			rrsets:  []model.RRset{rr("www."+zone, "A", 300, "192.0.2.1"), rr("*.shop."+zone, "A", 300, "192.0.2.9")},
			skipped: []string{"*.shop.example.test. A: wildcard *.shop.example.test. answers for x.shop.example.test."}},
		{name: "DNAME above the granted name", delegate: "x.shop.example.test",
			rrsets:  []model.RRset{rr("www."+zone, "A", 300, "192.0.2.1"), rr("shop."+zone, "DNAME", 300, "shop.example.org.")},
			skipped: []string{"shop.example.test. DNAME: the DNAME at shop.example.test. redirects every name below it, and x.shop.example.test. lies below it"}},
		{name: "wildcard beside the delegation", delegate: "shop.example.test",
			rrsets: []model.RRset{rr("*."+zone, "A", 300, "192.0.2.9"), rr("shop."+zone, "NS", 300, "ns1.example.org.")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := []byte(`package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	acme: {domains: ["example.test"], providers: ["pdns"]}
	shop: {delegate: ["` + tc.delegate + `"], providers: ["pdns"]}
}
`)
			read, err := compiler.ReadOperatorFile("site.cue", site)
			if err != nil {
				t.Fatal(err)
			}
			var snap model.ZoneSnapshot
			for _, r := range tc.rrsets {
				snap.RRsets = append(snap.RRsets, ptr(r))
			}
			a, err := Read(context.Background(), snapshotExporter{snap}, Request{Tenant: "acme", Zone: zone, Operator: read,
				Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Skipped) != len(tc.skipped) {
				t.Fatalf("skipped %q, want %d lines containing %q", a.Skipped, len(tc.skipped), tc.skipped)
			}
			for i, want := range tc.skipped {
				if !strings.Contains(a.Skipped[i], want) || !strings.Contains(a.Skipped[i], "left as it is") {
					t.Errorf("skipped[%d] = %q, want it to contain %q and say it is left as it is", i, a.Skipped[i], want)
				}
			}
			if got, want := len(a.Zone.RRsets), len(tc.rrsets)-len(tc.skipped); got != want {
				t.Errorf("kept %d RRsets, want %d:\n%s", got, want, a.Source)
			}
			if err := Vet("site.cue", site, "acme.cue", a.Source); err != nil {
				t.Errorf("the spec does not pass site vet with the real site.cue: %v\n%s", err, a.Source)
			}
		})
	}
}

// TestReadLeavesOutAnotherTenantsBlockAddresses: exporting a /24's
// reverse zone inside which site.cue grants another tenant an RFC 2317
// block keeps the delegation and the CNAMEs into the block and leaves
// out, listed, what else answers for the block's addresses (a PTR there,
// a wildcard beside addresses without their CNAME): it is not below the
// block's name, and the spec would not pass site vet with it. The block
// spelt FIRST-LAST (0-63) is the same block.
func TestReadLeavesOutAnotherTenantsBlockAddresses(t *testing.T) {
	const zone = "2.0.192.in-addr.arpa."
	for _, block := range []string{"0/26", "0-63"} {
		t.Run(block, func(t *testing.T) {
			site := []byte(`package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	acme: {domains: ["example.test", "2.0.192.in-addr.arpa"], providers: ["pdns"]}
	shop: {domains: ["shop.test"], delegate: ["` + block + `.2.0.192.in-addr.arpa"], providers: ["pdns"]}
}
`)
			read, err := compiler.ReadOperatorFile("site.cue", site)
			if err != nil {
				t.Fatal(err)
			}
			x := snapshotExporter{model.ZoneSnapshot{RRsets: []*model.RRset{
				ptr(rr(block+"."+zone, "NS", 300, "ns1.shop.test.")),
				ptr(rr("5."+zone, "CNAME", 300, "5."+block+"."+zone)),
				// Written by hand in another case: the same name to DNS.
				ptr(rr("7."+zone, "CNAME", 300, "7."+block+".2.0.192.IN-ADDR.ARPA.")),
				ptr(rr("6."+zone, "PTR", 300, "evil.example.test.")),
				ptr(rr("64."+zone, "PTR", 300, "www.example.test.")),
				ptr(rr("*."+zone, "PTR", 300, "any.example.test.")),
			}}}
			a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone, Operator: read,
				Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Skipped) != 2 ||
				!strings.Contains(a.Skipped[0], "6.2.0.192.in-addr.arpa. PTR is at or below the reverse name of an address in the RFC 2317 block "+block+".2.0.192.in-addr.arpa., which site.cue grants to tenant shop") ||
				!strings.Contains(a.Skipped[1], "wildcard *.2.0.192.in-addr.arpa. answers for the reverse names of 192.0.2.0 to 192.0.2.4, 192.0.2.6, 192.0.2.8 to 192.0.2.63 (block "+block+".2.0.192.in-addr.arpa., tenant shop)") {
				t.Errorf("skipped %q, want 6's PTR and the wildcard left out", a.Skipped)
			}
			if len(a.Zone.RRsets) != 4 || strings.Contains(string(a.Source), "evil.example.test.") {
				t.Errorf("kept %d RRsets, want the delegation, the two CNAMEs and 64's PTR:\n%s", len(a.Zone.RRsets), a.Source)
			}
			if err := Vet("site.cue", site, "acme.cue", a.Source); err != nil {
				t.Errorf("the spec does not pass site vet with the real site.cue: %v\n%s", err, a.Source)
			}
		})
	}
}

// TestReadVetsWithTheOperatorsFiles: where the operator's site.cue is
// read, the spec is vetted as site vet of the file it goes to would vet
// it: with that site.cue (plus the lines it needs, while it does not
// grant the tenant) and the tenant files beside the file. A parent zone
// whose apex NS site.cue does not list, or whose delegation of another
// tenant's zone names servers that zone does not, passed the export's
// own vet (a site.cue of the exporting tenant's grant alone), was
// written and marked, and then failed site vet.
func TestReadVetsWithTheOperatorsFiles(t *testing.T) {
	const zone = "example.test."
	const shopFile = `package tenants

tenants: shop: {
	domain: "shop.example.test"
	dns: zones: "shop.example.test": {
		provider: "pdns"
		records: "@": NS: ["ns1.example.net.", "ns2.example.net."]
	}
}
`
	site := func(nameservers, acme string) string {
		return `package site

providers: pdns: {
	powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
` + nameservers + `}
tenants: {
	shop: {delegate: ["shop.example.test"], providers: ["pdns"]}
` + acme + `}
`
	}
	const listed = "\tnameservers: [\"ns1.example.net.\", \"ns2.example.net.\"]\n"
	const acme = "\tacme: {domains: [\"example.test\"], providers: [\"pdns\"]}\n"
	apexNS := rr(zone, "NS", 300, "ns1.example.net.", "ns2.example.net.")
	www := rr("www."+zone, "A", 300, "192.0.2.1")
	ds := rr("d."+zone, "DS", 300, "2371 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
	for _, tc := range []struct {
		name     string
		site     string
		rrsets   []model.RRset
		stdout   bool     // no --out: no tenant files beside it to load
		want     []string // in the error, in order; none: it passes
		lines    bool     // it passes, and site.cue lacks the grant: Site holds its lines
		warnings []string // it passes, and site vet warns: one each, in order
	}{
		{name: "apex NS, no name servers listed", site: site("", acme),
			rrsets: []model.RRset{apexNS, www},
			want: []string{
				"site vet of ", "acme.cue would refuse the exported spec for tenant acme (checked with ", "site.cue and the tenant files beside it); nothing was written or marked:\n",
				`tenants.acme.dns.zones."example.test".records."@".NS: example.test. NS is at the apex of zone example.test., above shop.example.test., which site.cue grants to tenant shop, and site.cue lists no name servers for provider pdns`,
				"site.cue:7:", // shop's grant, in the real site.cue
				"do what vet asks", "then run site export again"}},
		{name: "apex NS, to stdout", site: site("", acme), stdout: true,
			rrsets: []model.RRset{apexNS, www},
			want:   []string{"site vet would refuse the exported spec for tenant acme (checked with ", "site.cue; without --out, no tenant files beside it)", "site.cue lists no name servers for provider pdns"}},
		{name: "apex NS, tenant not granted yet", site: site("", ""),
			rrsets: []model.RRset{apexNS, www},
			want: []string{"(checked with ", "site.cue, the lines below added, and the tenant files beside it)",
				"site.cue lists no name servers for provider pdns",
				"the lines site.cue needs for tenant acme:\n\ntenants: acme: {\n"}},
		{name: "apex NS listed", site: site(listed, acme),
			rrsets: []model.RRset{apexNS, www}},
		{name: "tenant not granted yet, passes", site: site(listed, ""),
			rrsets: []model.RRset{apexNS, www}, lines: true},
		{name: "grant without the provider", site: site(listed, "\tacme: {domains: [\"example.test\"], providers: []}\n"),
			rrsets: []model.RRset{www},
			want:   []string{"provider", "the lines site.cue needs for tenant acme:\n\ntenants: acme: {\n"}},
		{name: "grant without the zone", site: site(listed, "\tacme: {domains: [\"other.test\"], providers: [\"pdns\"]}\n"),
			rrsets: []model.RRset{www},
			want:   []string{"example.test", "the lines site.cue needs for tenant acme:\n\ntenants: acme: {\n"}},
		{name: "warning", site: site(listed, acme),
			rrsets:   []model.RRset{apexNS, www, ds},
			warnings: []string{`tenants.acme.dns.zones."example.test".records.d.DS: d.example.test. has a DS but no NS in zone example.test.`}},
		{name: "warning, to stdout", site: site(listed, acme), stdout: true,
			rrsets:   []model.RRset{apexNS, www, ds},
			warnings: []string{`tenants.acme.dns.zones."example.test".records.d.DS: d.example.test. has a DS but no NS in zone example.test.`}},
		{name: "warning, tenant not granted yet", site: site(listed, ""),
			rrsets: []model.RRset{apexNS, www, ds}, lines: true,
			warnings: []string{`records.d.DS: d.example.test. has a DS but no NS`}},
		{name: "delegation unlike the child's apex NS", site: site(listed, acme),
			rrsets: []model.RRset{apexNS, rr("shop."+zone, "NS", 300, "ns.evil.example.")},
			want: []string{
				`records.shop.NS.0: shop.example.test. NS names ns.evil.example., which tenant shop's zone shop.example.test. does not name at its apex`,
				"shop.cue:7:"}}, // the child's "@": NS
		{name: "delegation unlike the child's, to stdout", site: site(listed, acme), stdout: true,
			rrsets: []model.RRset{apexNS, rr("shop."+zone, "NS", 300, "ns.evil.example.")}},
		{name: "delegation as the child's apex NS", site: site(listed, acme),
			rrsets: []model.RRset{apexNS, rr("shop."+zone, "NS", 300, "ns1.example.net.", "ns2.example.net.")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			config := filepath.Join(dir, "site.cue")
			for name, src := range map[string]string{config: tc.site, filepath.Join(dir, "shop.cue"): shopFile} {
				if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			read, err := compiler.ReadOperatorFile(config, []byte(tc.site))
			if err != nil {
				t.Fatal(err)
			}
			var snap model.ZoneSnapshot
			for _, r := range tc.rrsets {
				snap.RRsets = append(snap.RRsets, ptr(r))
			}
			req := Request{Tenant: "acme", Zone: zone, Operator: read, Out: filepath.Join(dir, "acme.cue"), ProviderDeclared: true,
				Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}}
			if tc.stdout {
				req.Out = ""
			}
			a, err := Read(context.Background(), snapshotExporter{snap}, req)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if got := len(a.Site) > 0; got != tc.lines || tc.lines && !strings.Contains(string(a.Site), "tenants: acme: {") {
					t.Errorf("the lines for site.cue are %q; want them: %v", a.Site, tc.lines)
				}
				if len(a.Warnings) != len(tc.warnings) {
					t.Fatalf("warnings %q, want %d", a.Warnings, len(tc.warnings))
				}
				for i, w := range a.Warnings {
					// Positioned in --out, which holds the spec once
					// written; to stdout there is no file to point into.
					if positioned := strings.HasPrefix(w, req.Out+":"); positioned == tc.stdout {
						t.Errorf("warning %q: positioned in %s is %v, want %v", w, req.Out, positioned, !tc.stdout)
					}
					if !strings.Contains(w, tc.warnings[i]) {
						t.Errorf("warning %q lacks %q", w, tc.warnings[i])
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("Read passed a spec site vet refuses, want an error saying %q", tc.want)
			}
			rest := err.Error()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the error lacks %q (in order):\n%v", w, err)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestReadWarnsWithoutSiteCue: with no operator's file, the spec is
// vetted with its grant's lines alone, and site vet's warnings come back
// all the same, positioned in --out when there is one.
func TestReadWarnsWithoutSiteCue(t *testing.T) {
	const zone = "example.test."
	x := snapshotExporter{model.ZoneSnapshot{RRsets: []*model.RRset{
		ptr(rr("www."+zone, "A", 300, "192.0.2.1")),
		ptr(rr("d."+zone, "DS", 300, "2371 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")),
	}}}
	for _, out := range []string{"", "tenants/acme.cue"} {
		t.Run("out="+out, func(t *testing.T) {
			a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone, Out: out,
				Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
			if err != nil {
				t.Fatal(err)
			}
			want := `tenants.acme.dns.zones."example.test".records.d.DS: d.example.test. has a DS but no NS`
			if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], want) || strings.HasPrefix(a.Warnings[0], "tenants/acme.cue:") != (out != "") {
				t.Errorf("warnings %q, want one holding %q, positioned in %q", a.Warnings, want, out)
			}
			if len(a.Site) == 0 {
				t.Error("no lines for site.cue, which there is none of")
			}
		})
	}
}
