package export

import (
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

func TestRenderErrors(t *testing.T) {
	base := func(rrsets ...model.RRset) Zone {
		return Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: pdnsProvider, RRsets: rrsets}
	}
	vaultKey := model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081",
		APIKey: model.Credential{Vault: &model.VaultRef{Path: "dns/pdns", Key: "api_key"}}}}
	tests := []struct {
		name    string
		zone    Zone
		wantErr string
	}{
		{"outside the zone", base(rr("www.example.org.", "A", 300, "192.0.2.1")),
			"www.example.org. A lies outside zone sjc.example.net."},
		{"two CNAMEs", base(rr("www.sjc.example.net.", "CNAME", 300, "a.example.org.", "b.example.org.")),
			"has 2 CNAME records"},
		{"one RRset twice", base(rr("a.sjc.example.net.", "A", 300, "192.0.2.1"), rr("a.sjc.example.net.", "A", 300, "192.0.2.2")),
			"two A RRsets at a.sjc.example.net."},
		{"bad value", base(rr("a.sjc.example.net.", "A", 300, "not-an-ip")),
			`a.sjc.example.net. A: A record "not-an-ip" is not an IPv4 address`},
		{"type the language lacks", base(rr("sjc.example.net.", "SOA", 3600, "a.example. h.example. 1 2 3 4 5")),
			"export: sjc.example.net. SOA: the tenant language has no SOA records"},
		{"TXT not UTF-8", base(rr("bin.sjc.example.net.", "TXT", 300, `"\255\254"`)),
			"bin.sjc.example.net. TXT: holds data that is not UTF-8"},
		{"no tenant", Zone{Zone: "sjc.example.net.", Provider: pdnsProvider}, "no tenant name"},
		{"relative zone", Zone{Tenant: "sjc", Zone: "sjc.example.net", Provider: pdnsProvider}, "pass it absolute with a trailing dot"},
		{"provider without a name", Zone{Tenant: "sjc", Zone: "sjc.example.net."}, "the provider has no name"},
		{"no provider", Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: model.Provider{Name: "x"}}, "no provider"},
		{"two providers", Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: model.Provider{Name: "x",
			PowerDNS: pdnsProvider.PowerDNS, Cloudflare: &model.Cloudflare{Token: model.Credential{Env: "CF"}}}}, "names both powerdns and cloudflare"},
		{"no credential", Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: model.Provider{Name: "x",
			Cloudflare: &model.Cloudflare{}}}, "cloudflare token has no reference"},
		{"vault credential without the vault's name", Zone{Tenant: "sjc", Zone: "sjc.example.net.", Provider: vaultKey},
			"powerdns api_key names no vault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Render writes the tenant's file, RenderSite the provider
			// for site.cue: an error in either is export's error.
			out, err := Render(tt.zone)
			if err == nil {
				out, err = RenderSite(tt.zone)
			}
			if err == nil {
				t.Fatalf("got no error, want one containing %q; output:\n%s", tt.wantErr, out)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error: got %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		rs      model.RRset
		wantErr string // "" means Render can write it
	}{
		{rr("a.example.org.", "A", 300, "192.0.2.1"), ""},
		{rr("a.example.org.", "txt", 300, `"caf\195\169"`), ""},
		{rr("a.example.org.", "CAA", 300, `0 issue "\255"`), "not UTF-8"},
		{rr("a.example.org.", "TXT", 300, `"\255"`), "not UTF-8"},
		{rr("a.example.org.", "AFSDB", 300, "1 afs.example."), "no AFSDB records"},
		{rr("a.example.org.", "PTR", 300, "host.example.org."), ""},
		{rr("a.example.org.", "DNAME", 300, "b.example.org.", "c.example.org."), "has 2 DNAME records"},
		{rr("a.example.org.", "NAPTR", 300, `1 1 "S" "\255" "" .`), "not UTF-8"},
		{rr("a.example.org.", "A", 0, "192.0.2.1"), "TTL 0 is out of range"},
		{rr("a.example.org.", "MX", 300, "10 mx"), "trailing dot"},
		{rr("a.example.org.", "CNAME", 300, "b.example.org.", "c.example.org."), "has 2 CNAME records"},
	}
	for _, tt := range tests {
		t.Run(tt.rs.Type+" "+strings.Join(tt.rs.Values, ","), func(t *testing.T) {
			err := Check(tt.rs)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("got no error, want one containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error: got %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// BenchmarkRender renders a zone of 10,000 A RRsets, about as many as
// one PowerDNS PATCH carries within the default 2 MiB
// webserver-max-bodysize
// (https://doc.powerdns.com/authoritative/settings.html#webserver-max-bodysize).
func BenchmarkRender(b *testing.B) {
	z := Zone{Tenant: "bulk", Zone: "bulk.test.", Provider: pdnsProvider}
	for i := range 10000 {
		z.RRsets = append(z.RRsets, rr(fmt.Sprintf("h%d.bulk.test.", i), "A", 300, fmt.Sprintf("10.0.%d.%d", i/256, i%256)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(z); err != nil {
			b.Fatal(err)
		}
	}
}
