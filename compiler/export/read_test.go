package export

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
)

// snapshotExporter hands Read a snapshot as a backend would.
type snapshotExporter struct{ snap backends.ZoneSnapshot }

func (x snapshotExporter) Export(context.Context, *model.Zone, *backends.Run) (*backends.ZoneSnapshot, error) {
	s := x.snap
	return &s, nil
}

func (x snapshotExporter) MarkOwned(context.Context, *model.Zone, *backends.Run) (int, error) {
	return 0, nil
}

// TestReadLeavesOutWhatTheLanguageCannotSay: an RRset a backend hands
// over that the language cannot say is left out and listed, and the rest
// exported; one such record failed the whole export.
func TestReadLeavesOutWhatTheLanguageCannotSay(t *testing.T) {
	const zone = "example.test."
	mx := rr(zone, "MX", 300, "10 mx.example.org.")
	mx.Proxied = true // Cloudflare proxies no MX
	x := snapshotExporter{backends.ZoneSnapshot{RRsets: []*model.RRset{
		ptr(rr("www."+zone, "A", 300, "192.0.2.1")),
		ptr(mx),
	}}}
	a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone,
		Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}},
		backends.NewRun())
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
	grants := read.GrantHolder
	x := snapshotExporter{backends.ZoneSnapshot{RRsets: []*model.RRset{
		ptr(rr("www."+zone, "A", 300, "192.0.2.1")),
		ptr(rr("shop."+zone, "NS", 300, "ns1.shop."+zone)),
		ptr(rr("ns1.shop."+zone, "A", 300, "192.0.2.53")),
		ptr(rr("www.shop."+zone, "A", 300, "203.0.113.66")),
	}}}
	a, err := Read(context.Background(), x, Request{Tenant: "acme", Zone: zone, Grants: grants,
		Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}},
		backends.NewRun())
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
