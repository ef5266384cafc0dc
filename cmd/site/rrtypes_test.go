package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/rdata"
)

// TestPowerDNSIssue12SpecEndToEnd is the one end-to-end run of issue
// 12's language: a tenant file with every new record type, an ignore
// rule and a zone soa, applied by the site command to a real PowerDNS,
// then diffed. The record ignored stays although it carries our marker
// and is not in the spec; the SOA gets the spec's fields; the data is
// served over DNS.
func TestPowerDNSIssue12SpecEndToEnd(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "rr.example.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "_acme-challenge." + zone, Type: "TXT", TTL: 60, Records: []string{`"token"`},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
	hex := strings.Repeat("ab", 32)
	src := `package tenants

tenants: office1: {
	domain: "rr.example.test"
	dns: zones: "rr.example.test": {
		provider: "pdns"
		ignore: [{name: "_acme-challenge", type: "TXT"}]
		soa: {primary: "ns1.rr.example.test.", mbox: "hostmaster@rr.example.test", refresh: 7200}
		records: {
			"@": {
				ALIAS: "lb.rr.example.test."
				HTTPS: [{priority: 1, target: ".", params: "port=443 alpn=h2,h3"}]
			}
			lb: A: ["192.0.2.7"]
			"7.2": PTR: ["lb.rr.example.test."]
			lb: SSHFP: [{algorithm: 4, type: 2, fingerprint: "` + strings.ToUpper(hex) + `"}]
			"_443._tcp": TLSA: [{usage: 3, selector: 1, matching_type: 1, certificate: "` + hex + `"}]
			"_dns": SVCB: [{priority: 0, target: "lb.rr.example.test."}]
			sip: NAPTR: [{order: 100, preference: 10, flags: "S", service: "SIP+D2U", regexp: "", replacement: "_sip._udp.rr.example.test."}]
			child: {NS: ["ns1.example.net."], DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + hex + `"}]}
			old: DNAME: "new.example.net."
			pgp: OPENPGPKEY: ["mQINBFq5 ZXhhbXBsZQ=="]
			dhcp: DHCID: ["AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="]
		}
	}
}
`
	file := writeSpec(t, siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"rr.example.test"}, providers: []string{"pdns"}}), "office1.cue", src)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	live := srv.Get(t, zone)
	if acme := live.Find("_acme-challenge."+zone, "TXT"); acme == nil || len(acme.Records) != 1 {
		t.Errorf("got %+v, want the ignored ACME TXT left in place", acme)
	}
	soa, err := rdata.ParseSOA(live.Find(zone, "SOA").Records[0])
	if err != nil || soa.MName != "ns1.rr.example.test." || soa.RName != "hostmaster.rr.example.test." || soa.Refresh != 7200 {
		t.Errorf("got SOA %s (%v), want mname ns1.rr.example.test., rname hostmaster.rr.example.test. and refresh 7200", soa, err)
	}
	if got := srv.Query(t, zone, "A"); len(got) != 1 || got[0] != "300 192.0.2.7" {
		t.Errorf("apex A (the ALIAS): got %q, want the target's address", got)
	}
	if got := srv.Query(t, "sip."+zone, "NAPTR"); len(got) != 1 || !strings.Contains(got[0], `"SIP+D2U"`) {
		t.Errorf("NAPTR: got %q", got)
	}
}
