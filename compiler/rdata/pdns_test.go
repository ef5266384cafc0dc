package rdata_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/rdata"
)

func TestMain(m *testing.M) { os.Exit(pdnstest.Main(m)) }

// TestPowerDNSKeepsCanonicalForm writes values in the form this package
// makes to a real PowerDNS and reads them back: the server must return
// them byte for byte, or every diff against it would show a change that
// never goes away. Values in other spellings must come back as something
// Normalize maps to the same canonical form.
func TestPowerDNSKeepsCanonicalForm(t *testing.T) {
	srv := pdnstest.Shared(t)
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const zone = "rdata.test."
	canonical := []pdnstest.RRset{
		{Name: "a." + zone, Type: "A", TTL: 300, Records: []string{must(rdata.A("192.0.2.1")), must(rdata.A("192.0.2.10"))}},
		{Name: "a." + zone, Type: "AAAA", TTL: 300, Records: []string{must(rdata.AAAA("2001:DB8:0:0:1::1")), must(rdata.AAAA("2001:db8:0:1:0:0:0:0"))}},
		{Name: "c." + zone, Type: "CNAME", TTL: 300, Records: []string{must(rdata.Host("Target.Example.ORG."))}},
		{Name: "idn." + zone, Type: "CNAME", TTL: 300, Records: []string{must(rdata.Host("münchen.de."))}},
		{Name: "t." + zone, Type: "TXT", TTL: 300, Records: []string{
			rdata.TXT("v=spf1 -all"),
			rdata.TXT(`say "hi" \ there`),
			rdata.TXT("tab\there, newline\nthere, café"),
			rdata.TXT(""),
			rdata.TXT(strings.Repeat("k", 300)),
		}},
		{Name: zone, Type: "MX", TTL: 300, Records: []string{must(rdata.MX(10, "MX.example.org.")), must(rdata.MX(20, "mx2.example.org."))}},
		{Name: "nomail." + zone, Type: "MX", TTL: 300, Records: []string{must(rdata.MX(0, "."))}},
		{Name: "_sip._tcp." + zone, Type: "SRV", TTL: 300, Records: []string{must(rdata.SRV(10, 5, 5060, "sip.example.org.")), must(rdata.SRV(0, 0, 0, "."))}},
		{Name: zone, Type: "CAA", TTL: 300, Records: []string{
			must(rdata.CAA(0, "issue", "letsencrypt.org")),
			must(rdata.CAA(128, "ISSUEWILD", ";")),
			must(rdata.CAA(0, "iodef", `mailto:"sec"@example.org`)),
		}},
		{Name: "sub." + zone, Type: "NS", TTL: 300, Records: []string{must(rdata.Host("NS1.example.org."))}},
		{Name: "1.2.0.192." + zone, Type: "PTR", TTL: 300, Records: []string{must(rdata.Host("Host.Example.NET.")), must(rdata.Host("h2.example.net."))}},
		{Name: "ssh." + zone, Type: "SSHFP", TTL: 300, Records: []string{must(rdata.SSHFP(4, 2, strings.Repeat("AB", 32))), must(rdata.SSHFP(1, 1, strings.Repeat("0f", 20)))}},
		{Name: "_443._tcp." + zone, Type: "TLSA", TTL: 300, Records: []string{must(rdata.TLSA(3, 1, 1, strings.Repeat("Cd", 32))), must(rdata.TLSA(2, 0, 0, "3082"))}},
		{Name: zone, Type: "HTTPS", TTL: 300, Records: []string{
			must(rdata.SVCB("HTTPS", 1, ".", "port=443 alpn=h3,h2 ipv6hint=2001:DB8::1 ipv4hint=192.0.2.1 mandatory=port no-default-alpn")),
			must(rdata.SVCB("HTTPS", 2, "Alt.Example.NET.", `ech="AEX+DQBBAAAg" key65000=abc`)),
		}},
		{Name: "_dns." + zone, Type: "SVCB", TTL: 300, Records: []string{must(rdata.SVCB("SVCB", 0, "svc.example.net.", ""))}},
		{Name: "sip." + zone, Type: "NAPTR", TTL: 300, Records: []string{
			must(rdata.NAPTR(100, 10, "S", "SIP+D2U", "", "_sip._udp.Example.NET.")),
			must(rdata.NAPTR(100, 20, "u", "E2U+sip", `!^.*$!sip:a\\b"q"@example.com!`, ".")),
		}},
		{Name: "child." + zone, Type: "DS", TTL: 300, Records: []string{must(rdata.DS(2371, 13, 2, strings.Repeat("Ef", 32)))}},
		{Name: "old." + zone, Type: "DNAME", TTL: 300, Records: []string{must(rdata.Host("New.Example.NET."))}},
		{Name: "pgp." + zone, Type: "OPENPGPKEY", TTL: 300, Records: []string{must(rdata.Base64("OPENPGPKEY", "mQINBFq5 ZXhhbXBsZQ=="))}},
		{Name: "dhcp." + zone, Type: "DHCID", TTL: 300, Records: []string{must(rdata.Base64("DHCID", "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="))}},
		{Name: "apex-like." + zone, Type: "ALIAS", TTL: 300, Records: []string{must(rdata.Host("Target.Example.NET."))}},
		{Name: "loc." + zone, Type: "LOC", TTL: 300, Records: []string{must(rdata.LOC("52 22 23 N 4 53 32 E -2m")), must(rdata.LOC("42 21 43.528 S 71 5 6.284 W 24m 1m 200m 10m"))}},
		{Name: "_http._tcp." + zone, Type: "URI", TTL: 300, Records: []string{must(rdata.URI(10, 1, `https://www.example.net/a "b"`))}},
		{Name: "cert." + zone, Type: "CERT", TTL: 300, Records: []string{must(rdata.CERT(1, 12, 8, "MIIB IjAN")), must(rdata.CERT(253, 0, 0, "aHR0cDovL2V4YW1wbGU="))}},
		{Name: "x._smimecert." + zone, Type: "SMIMEA", TTL: 300, Records: []string{must(rdata.SMIMEA(3, 1, 1, strings.Repeat("Cd", 32)))}},
		{Name: "hinfo." + zone, Type: "HINFO", TTL: 300, Records: []string{must(rdata.HINFO("INTEL", `a "b" \ c`))}},
		{Name: "rp." + zone, Type: "RP", TTL: 300, Records: []string{must(rdata.RP("Admin.Example.NET.", "txt.example.net.")), must(rdata.RP(".", "."))}},
	}
	srv.CreateZone(t, zone, canonical...)
	live := srv.Get(t, zone)
	for _, want := range canonical {
		t.Run(want.Name+" "+want.Type, func(t *testing.T) {
			got := live.Find(want.Name, want.Type)
			if got == nil {
				t.Fatalf("PowerDNS has no %s %s", want.Name, want.Type)
			}
			w := slices.Sorted(slices.Values(want.Records))
			g := slices.Sorted(slices.Values(got.Records))
			if !slices.Equal(g, w) {
				t.Errorf("PowerDNS returned\n got %q\nwant %q", g, w)
			}
		})
	}

	// Other spellings a foreign writer may use.
	other := []struct {
		typ, in string
	}{
		{"AAAA", "2001:0DB8:0000::0001"},
		{"TXT", `"ab" "cd"`},
		{"TXT", `"\099af\233"`},
		{"MX", "10 MX.Example.ORG."},
		{"CAA", `0 issue "ca.example"`},
		{"PTR", "Host.Example.NET."},
		{"SSHFP", "4 2 " + strings.Repeat("AB", 32)},
		{"DNAME", "New.Example.NET."},
		{"RP", "Admin.Example.NET. Txt.Example.NET."},
		{"URI", `1 0 "ftp://x.example/"`},
		{"HINFO", `"x86" "Linux 6.1"`},
	}
	for i, o := range other {
		t.Run("other "+o.typ+" "+o.in, func(t *testing.T) {
			name := "o" + string(rune('a'+i)) + "." + zone
			srv.Replace(t, zone, pdnstest.RRset{Name: name, Type: o.typ, TTL: 300, Records: []string{o.in}})
			got := srv.Get(t, zone).Find(name, o.typ)
			if got == nil || len(got.Records) != 1 {
				t.Fatalf("PowerDNS has no single %s %s: %+v", name, o.typ, got)
			}
			fromServer, err := rdata.Normalize(o.typ, got.Records[0])
			if err != nil {
				t.Fatalf("Normalize(%q) of what PowerDNS returned: %v", got.Records[0], err)
			}
			fromInput, err := rdata.Normalize(o.typ, o.in)
			if err != nil {
				t.Fatal(err)
			}
			if fromServer != fromInput {
				t.Errorf("PowerDNS returned %q for %q: normalised %q, want %q", got.Records[0], o.in, fromServer, fromInput)
			}
		})
	}
}
