package export

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
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
