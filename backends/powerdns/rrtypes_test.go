package powerdns

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
	record "github.com/site-tools/site/compiler/rdata"
)

// TestEveryRecordTypeAppliesConvergesAndIsServed writes each type of
// issue 12 to a real PowerDNS, in the canonical form the compiler makes:
// the apply's own DNS verification must pass (mustApply fails on any
// problem), the next plan must be empty, and the DNS port must answer
// the data of every type, an ALIAS as its target's addresses.
func TestEveryRecordTypeAppliesConvergesAndIsServed(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "rrtypes.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hex32 := strings.Repeat("ab", 32)
	rrsets := []*model.RRset{
		rr("lb."+zone, "A", 300, "192.0.2.7"),
		rr("lb."+zone, "AAAA", 300, "2001:db8::7"),
		rr(zone, "ALIAS", 300, "lb."+zone),
		rr(zone, "HTTPS", 300, must(record.SVCB("HTTPS", 1, ".", "alpn=h2,h3 port=443"))),
		rr("1.2."+zone, "PTR", 300, "host.example.net."),
		rr("ssh."+zone, "SSHFP", 300, must(record.SSHFP(4, 2, hex32))),
		rr("_443._tcp."+zone, "TLSA", 300, must(record.TLSA(3, 1, 1, hex32))),
		rr("_dns."+zone, "SVCB", 300, must(record.SVCB("SVCB", 0, "svc.example.net.", ""))),
		rr("sip."+zone, "NAPTR", 300, must(record.NAPTR(100, 10, "S", "SIP+D2U", "", "_sip._udp.example.net."))),
		rr("child."+zone, "NS", 300, "ns1.example.net."),
		rr("child."+zone, "DS", 300, must(record.DS(2371, 13, 2, hex32))),
		rr("old."+zone, "DNAME", 300, "new.example.net."),
		rr("pgp."+zone, "OPENPGPKEY", 300, must(record.Base64("OPENPGPKEY", "mQINBFq5ZXhhbXBsZQ=="))),
		rr("dhcp."+zone, "DHCID", 300, must(record.Base64("DHCID", "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="))),
	}
	step := zoneStep(srv, "office1", zone, rrsets...)
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	// Observed again in the same run from the POST's answer, and by the
	// next run with a GET: both converged, and the same zone to the last
	// byte the fingerprint covers (the serial included).
	again, fresh := mustPlan(t, d, step, run), mustPlan(t, d, step, newRun(srv))
	if len(again.Changes) != 0 || len(fresh.Changes) != 0 {
		t.Fatalf("not converged after apply: %q from the POST's answer, %q from a GET", summary(again.Changes), summary(fresh.Changes))
	}
	if again.Reads != 0 || again.Fingerprint != fresh.Fingerprint {
		t.Errorf("the POST's answer observed as %s (%d reads), a GET as %s: want the same zone, without a read", again.Fingerprint, again.Reads, fresh.Fingerprint)
	}
	served := []struct{ name, typ, want string }{
		{zone, "A", "300 192.0.2.7"},
		{zone, "AAAA", "300 2001:db8::7"},
		{zone, "HTTPS", `300 1 . alpn="h2,h3" port="443"`},
		{"1.2." + zone, "PTR", "300 host.example.net."},
		{"ssh." + zone, "SSHFP", "300 4 2 " + strings.ToUpper(hex32)},
		{"_443._tcp." + zone, "TLSA", "300 3 1 1 " + hex32},
		{"sip." + zone, "NAPTR", `300 100 10 "S" "SIP+D2U" "" _sip._udp.example.net.`},
		{"old." + zone, "DNAME", "300 new.example.net."},
		{"pgp." + zone, "OPENPGPKEY", "300 mQINBFq5ZXhhbXBsZQ=="},
		{"_dns." + zone, "SVCB", "300 0 svc.example.net."},
		{"child." + zone, "DS", "300 2371 13 2 " + strings.ToUpper(hex32)},
		{"dhcp." + zone, "DHCID", "300 AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="},
		{"lb." + zone, "A", "300 192.0.2.7"},
		{"lb." + zone, "AAAA", "300 2001:db8::7"},
	}
	for _, s := range served {
		if got := srv.Query(t, s.name, s.typ); len(got) != 1 || got[0] != s.want {
			t.Errorf("%s %s: served %q, want %q", s.name, s.typ, got, s.want)
		}
	}
}

// TestVerifyAliasReportsUnservedAddresses: an ALIAS whose target does
// not resolve is answered with SERVFAIL, and verification says so, with
// the settings to check, instead of failing the whole verification.
func TestVerifyAliasReportsUnservedAddresses(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "alias-verify.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: zone, Type: "ALIAS", TTL: 300, Records: []string{"nothing." + zone}},
		pdnstest.RRset{Name: "lb." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.8"}},
		pdnstest.RRset{Name: "ok." + zone, Type: "ALIAS", TTL: 300, Records: []string{"lb." + zone}},
		pdnstest.RRset{Name: "txt." + zone, Type: "TXT", TTL: 300, Records: []string{`"no address"`}},
		pdnstest.RRset{Name: "empty." + zone, Type: "ALIAS", TTL: 300, Records: []string{"txt." + zone}},
	)
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	v, err := verify(context.Background(), srv.DNSAddr, zone, []expectation{
		{name: zone, typ: "ALIAS", ttl: 300, values: []string{"nothing." + zone}},
		{name: "ok." + zone, typ: "ALIAS", ttl: 300, values: []string{"lb." + zone}},
		{name: "gone." + zone, typ: "ALIAS", gone: true},
		{name: "empty." + zone, typ: "ALIAS", ttl: 300, values: []string{"txt." + zone}},
	})
	if err != nil {
		t.Fatal(err)
	}
	problems := v.problems
	if len(problems) != 2 || !strings.Contains(problems[0], zone+" ALIAS: written, but the server answers SERVFAIL for its addresses; PowerDNS serves an ALIAS only with expand-alias=yes") ||
		!strings.Contains(problems[1], "empty."+zone+" ALIAS: written, but the server answers no A or AAAA records there") {
		t.Errorf("got %q, want a problem for each ALIAS without addresses", problems)
	}
}

// TestSOAFieldsKeepTheServersSerial: a zone's soa rewrites the fields it
// sets over the live SOA, the serial stays the server's (and moves on,
// SOA-EDIT-API), the served SOA is verified without its serial, and the
// next plan is empty.
func TestSOAFieldsKeepTheServersSerial(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "soa.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	before := srv.Get(t, zone).Find(zone, "SOA")
	if before == nil {
		t.Fatal("the created zone has no SOA")
	}
	old, err := record.ParseSOA(before.Records[0])
	if err != nil {
		t.Fatal(err)
	}

	refresh, minimum := uint32(7200), uint32(120)
	step.Zone.SOA = &model.SOA{MName: "ns1.example.net.", Mbox: "dns.example.net.", Refresh: &refresh, Minimum: &minimum}
	sp := mustPlan(t, d, step, run)
	if got := summary(sp.Changes); len(got) != 1 || got[0] != "update dns/soa.test./soa.test./SOA live" {
		t.Fatalf("got %q, want one live SOA update", got)
	}
	mustApply(t, d, sp, run)
	got, err := record.ParseSOA(srv.Get(t, zone).Find(zone, "SOA").Records[0])
	if err != nil {
		t.Fatal(err)
	}
	want := old
	want.MName, want.RName, want.Refresh, want.Minimum, want.Serial = "ns1.example.net.", "dns.example.net.", 7200, 120, got.Serial
	if got != want || got.Serial <= old.Serial {
		t.Errorf("got SOA %s, want %s with a serial past %d", got, want, old.Serial)
	}
	if again := mustPlan(t, d, step, run); len(again.Changes) != 0 {
		t.Errorf("not converged after the SOA update: %q", summary(again.Changes))
	}
}

// TestSOAOfACreatedZoneInOneRun: a zone site creates gets its soa fields
// in the same apply (PowerDNS makes the SOA with the zone, its primary
// a.misconfigured.dns.server.invalid.), the primary among them, the
// plan says so, and the next plan is empty.
func TestSOAOfACreatedZoneInOneRun(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "soa-new.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
	expire := uint32(1209600)
	step.Zone.SOA = &model.SOA{MName: "ns1.soa-new.test.", Mbox: "dns.example.net.", Expire: &expire}
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, step, run)
	want := []string{"create dns/soa-new.test. live", "create dns/soa-new.test./www.soa-new.test./A live", "update dns/soa-new.test./soa-new.test./SOA live"}
	if got := summary(sp.Changes); !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	mustApply(t, d, sp, run)
	got, err := record.ParseSOA(srv.Get(t, zone).Find(zone, "SOA").Records[0])
	if err != nil || got.MName != "ns1.soa-new.test." || got.RName != "dns.example.net." || got.Expire != expire {
		t.Errorf("got SOA %s (%v), want mname ns1.soa-new.test., rname dns.example.net. and expire %d", got, err, expire)
	}
	if again := mustPlan(t, d, step, run); len(again.Changes) != 0 {
		t.Errorf("not converged after creating the zone: %q", summary(again.Changes))
	}
}
