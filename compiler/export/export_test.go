package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"

	"github.com/site-tools/site/compiler/golden"
)

func rr(name, typ string, ttl uint32, values ...string) model.RRset {
	return model.RRset{Name: name, Type: typ, TTL: ttl, Values: values}
}

var pdnsProvider = model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{
	URL: "http://127.0.0.1:8081", Server: "localhost", APIKey: model.Credential{Env: "PDNS_API_KEY"},
}}

// renderCases are zones whose output is pinned by a golden file and read
// back through the compiler.
var renderCases = []struct {
	name string
	zone Zone
}{
	{
		name: "powerdns",
		zone: Zone{
			Tenant: "sjc", Domain: "sjc.example.net.", Zone: "sjc.example.net.", Provider: pdnsProvider,
			RRsets: []model.RRset{
				rr("sjc.example.net.", "NS", 300, "ns1.example.org.", "ns2.example.org."),
				rr("sjc.example.net.", "MX", 300, "20 mx2.example.org.", "5 mx1.example.org."),
				rr("sjc.example.net.", "TXT", 300, `"v=spf1 mx -all"`),
				rr("sjc.example.net.", "CAA", 300, `0 issue "letsencrypt.org"`, `128 iodef "mailto:sec@example.net"`),
				rr("sjc.example.net.", "A", 300, "203.0.113.10"),
				rr("keys.sjc.example.net.", "A", 300, "203.0.113.10"),
				rr("www.sjc.example.net.", "CNAME", 300, "sjc.example.net."),
				rr("*.apps.sjc.example.net.", "A", 300, "203.0.113.11"),
				rr("apps.sjc.example.net.", "AAAA", 300, "2001:db8::10", "2001:db8::9"),
				rr("x.apps.sjc.example.net.", "A", 300, "203.0.113.9", "203.0.113.10"),
				rr("_dmarc.sjc.example.net.", "TXT", 3600, `"v=DMARC1; p=reject"`),
				rr("_sip._tcp.sjc.example.net.", "SRV", 300, "10 5 5060 sip.sjc.example.net.", "10 5 5061 sip.sjc.example.net."),
				rr("sip.sjc.example.net.", "A", 60, "203.0.113.12"),
				rr("sip.sjc.example.net.", "TXT", 60, `"say \"hi\" \\ there"`, `"line\010break"`),
				rr("long.sjc.example.net.", "TXT", 300, `"`+strings.Repeat("a", 255)+`" "bcd"`),
				// Strings apart that a split at 255 would not make: a list.
				rr("parts.sjc.example.net.", "TXT", 300, `"part one" "part two"`, `"v=spf1 mx -all"`),
				rr("nomail.sjc.example.net.", "MX", 300, "0 ."),
				rr("if.sjc.example.net.", "A", 300, "192.0.2.1"),
				rr("xn--mnchen-3ya.sjc.example.net.", "A", 300, "192.0.2.2"),
				rr("office.sjc.example.net.", "NS", 300, "ns.office.example.org."),
				rr("empty.sjc.example.net.", "A", 300),
			},
		},
	},
	{
		name: "cloudflare",
		zone: Zone{
			Tenant: "office1", Domain: "office1.example.com.", Zone: "example.com.",
			Provider: model.Provider{Name: "cf", Cloudflare: &model.Cloudflare{
				Token:  model.Credential{Vault: &model.VaultRef{Vault: "bao", Path: "dns/cloudflare", Key: "token"}},
				APIURL: "http://127.0.0.1:8787/client/v4",
			}},
			RRsets: []model.RRset{
				rr("example.com.", "A", 1, "192.0.2.1"),
				rr("www.example.com.", "CNAME", 1, "example.com."),
				rr("api.example.com.", "AAAA", 120, "2001:db8::1"),
				rr("api.example.com.", "TXT", 3600, `"v=spf1 -all"`),
				proxied(rr("cdn.example.com.", "A", 1, "192.0.2.9")),
				proxied(rr("cdn.example.com.", "AAAA", 1, "2001:db8::9")),
			},
		},
	},
	{
		name: "signed",
		zone: Zone{
			Tenant: "sjc", Domain: "sjc.example.net.", Zone: "sjc.example.net.", Provider: pdnsProvider, DNSSEC: true,
			RRsets: []model.RRset{rr("www.sjc.example.net.", "A", 300, "192.0.2.1")},
		},
	},
	{
		name: "rrtypes",
		zone: Zone{
			Tenant: "sjc", Domain: "sjc.example.net.", Zone: "sjc.example.net.", Provider: pdnsProvider,
			RRsets: []model.RRset{
				rr("sjc.example.net.", "ALIAS", 300, "lb.example.org."),
				rr("sjc.example.net.", "HTTPS", 300, "1 . alpn=h2,h3 port=443", "2 alt.example.org. ech=\"AEX+DQBBAAAg\""),
				rr("1.2.sjc.example.net.", "PTR", 300, "host.example.org.", "h2.example.org."),
				rr("ssh.sjc.example.net.", "SSHFP", 300, "4 2 "+strings.Repeat("ab", 32), "1 1 "+strings.Repeat("0f", 20)),
				rr("_443._tcp.sjc.example.net.", "TLSA", 300, "3 1 1 "+strings.Repeat("cd", 32)),
				rr("_dns.sjc.example.net.", "SVCB", 300, "0 svc.example.org."),
				rr("sip.sjc.example.net.", "NAPTR", 300, `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`, `100 20 "u" "E2U+sip" "!^.*$!sip:a\\b@example.org!" .`),
				rr("child.sjc.example.net.", "DS", 300, "2371 13 2 "+strings.Repeat("ef", 32)),
				rr("child.sjc.example.net.", "NS", 300, "ns1.example.org."),
				rr("old.sjc.example.net.", "DNAME", 300, "new.example.org."),
				rr("pgp.sjc.example.net.", "OPENPGPKEY", 300, "mQINBFq5ZXhhbXBsZQ=="),
				rr("dhcp.sjc.example.net.", "DHCID", 300, "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="),
			},
		},
	},
	{
		// issue 28: a TTL per type at one name, and the types it adds.
		name: "ttls",
		zone: Zone{
			Tenant: "sjc", Domain: "sjc.example.net.", Zone: "sjc.example.net.", Provider: pdnsProvider,
			RRsets: []model.RRset{
				rr("sjc.example.net.", "A", 300, "192.0.2.1"),
				rr("sjc.example.net.", "MX", 3600, "10 mx.example.org."),
				rr("sjc.example.net.", "TXT", 300, `"v=spf1 -all"`),
				rr("sjc.example.net.", "LOC", 86400, "52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m"),
				rr("www.sjc.example.net.", "A", 60, "192.0.2.2"),
				rr("www.sjc.example.net.", "AAAA", 120, "2001:db8::2"),
				rr("_http._tcp.sjc.example.net.", "URI", 300, `10 1 "https://www.sjc.example.net/"`),
				rr("cert.sjc.example.net.", "CERT", 300, "1 12 8 MIIBIjAN"),
				rr("x._smimecert.sjc.example.net.", "SMIMEA", 300, "3 1 1 "+strings.Repeat("cd", 32)),
				rr("host.sjc.example.net.", "HINFO", 300, `"INTEL" ""`),
				rr("host.sjc.example.net.", "RP", 3600, "hostmaster.sjc.example.net. ."),
			},
		},
	},
	{
		name: "empty",
		zone: Zone{Tenant: "lab", Zone: "lab.example.org.", Provider: model.Provider{Name: "primary", PowerDNS: &model.PowerDNS{
			URL: "https://dns.example.org", Server: "primary", APIKey: model.Credential{Vault: &model.VaultRef{Vault: "bao", Path: "dns/pdns", Key: "api_key"}},
		}}},
	},
	{
		// site.cue declares the server already: its lines only grant it.
		name: "declared",
		zone: Zone{Tenant: "lab", Zone: "lab.example.org.", ProviderDeclared: true, Provider: model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{
			URL: "https://dns.example.org", Server: "localhost", APIKey: model.Credential{Env: "PDNS_API_KEY"},
		}}, RRsets: []model.RRset{rr("www.lab.example.org.", "A", 300, "192.0.2.1")}},
	},
}

func TestRender(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Render(tc.zone)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), got)
			site, err := RenderSite(tc.zone)
			if err != nil {
				t.Fatalf("RenderSite: %v", err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".site.golden"), site)
			again, err := Render(tc.zone)
			if err != nil || string(again) != string(got) {
				t.Errorf("a second Render gave other output (%v):\n%s", err, again)
			}
		})
	}
}

// TestIncident1_RenderedSpecLoads reads each rendered spec back with the
// compiler and checks that it says exactly the records it was made from:
// what export writes passes site vet by construction (INCIDENTS.md 1,
// "generated config that does not parse").
func TestIncident1_RenderedSpecLoads(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Render(tc.zone)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			spec, err := loadRendered(t, t.TempDir(), tc.zone, out)
			if err != nil {
				t.Fatalf("compiler.Load of the rendered spec:\n%v\nspec:\n%s", err, out)
			}
			if len(spec.Tenants) != 1 || spec.Tenants[0].Name != tc.zone.Tenant || len(spec.Tenants[0].Zones) != 1 {
				t.Fatalf("got %d tenants, want one tenant %q with one zone", len(spec.Tenants), tc.zone.Tenant)
			}
			zone := spec.Tenants[0].Zones[0]
			if zone.Name != tc.zone.Zone {
				t.Errorf("zone name: got %q, want %q", zone.Name, tc.zone.Zone)
			}
			if zone.DNSSEC != tc.zone.DNSSEC {
				t.Errorf("dnssec: got %v, want %v", zone.DNSSEC, tc.zone.DNSSEC)
			}
			// Compared as JSON, which leaves out where site.cue writes a
			// credential (model.VaultRef.Pos): what it says must match.
			// The request budget is a default loading adds, not
			// something export writes.
			provider := zone.Provider
			provider.Rate = nil
			if jsonString(provider) != jsonString(tc.zone.Provider) {
				t.Errorf("provider: got %s, want %s", jsonString(provider), jsonString(tc.zone.Provider))
			}
			var got []string
			for _, rs := range zone.RRsets {
				got = append(got, rrString(t, *rs))
			}
			var want []string
			for _, rs := range tc.zone.RRsets {
				if len(rs.Values) == 0 {
					continue
				}
				want = append(want, rrString(t, rs))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("records read back:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// loadRendered writes tenant spec out, and site.cue made of
// RenderSite's lines (and the store a vault credential names), into dir
// and loads them as site vet would.
func loadRendered(t *testing.T, dir string, z Zone, out []byte) (*model.Spec, error) {
	t.Helper()
	// A provider site.cue declares already is in it as it would be
	// declared.
	z.ProviderDeclared = false
	site, err := RenderSite(z)
	if err != nil {
		t.Fatalf("RenderSite: %v", err)
	}
	head := "package site\n\n"
	if c := z.Provider.Credential(); c.Vault != nil {
		head += fmt.Sprintf("vaults: %s: addrs: [\"https://vault.example.org\"]\n", c.Vault.Vault)
	}
	for name, src := range map[string][]byte{"site.cue": append([]byte(head), site...), z.Tenant + ".cue": out} {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return compiler.Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, z.Tenant+".cue")})
}

// rrString is an RRset as one comparable line, its values in canonical
// form and sorted, as the compiler keeps them.
func rrString(t *testing.T, rs model.RRset) string {
	t.Helper()
	values := make([]string, len(rs.Values))
	for i, v := range rs.Values {
		c, err := rdata.Normalize(rs.Type, v)
		if err != nil {
			t.Fatalf("%s %s: %v", rs.Name, rs.Type, err)
		}
		values[i] = c
	}
	slices.Sort(values)
	return fmt.Sprintf("%s %d %s %s proxied=%t", rs.Name, rs.TTL, rs.Type, strings.Join(values, " | "), rs.Proxied)
}

func proxied(rs model.RRset) model.RRset {
	rs.Proxied = true
	return rs
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
