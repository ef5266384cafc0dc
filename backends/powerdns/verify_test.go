package powerdns

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestIncident2_VerifyReportsWhatServerAnswers writes a name that the API
// accepts but the DNS port does not serve: it sits below a delegation, so
// the server answers with a referral. The apply "succeeded"; only asking
// the server shows the name does not resolve.
func TestIncident2_VerifyReportsWhatServerAnswers(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "verify.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "verify.test.", Type: "NS", TTL: 3600, Records: []string{"ns1.verify.test."}},
		pdnstest.RRset{Name: "ns1.verify.test.", Type: "A", TTL: 3600, Records: []string{"192.0.2.53"}},
		pdnstest.RRset{Name: "deleg.verify.test.", Type: "NS", TTL: 3600, Records: []string{"ns.elsewhere.example."}},
	)
	step := zoneStep(srv, "office1", zone,
		rr("ok.verify.test.", "A", 300, "192.0.2.1"),
		rr("www.deleg.verify.test.", "A", 300, "192.0.2.2"),
	)
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, step, run)
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "www.deleg.verify.test. A: written, but the server answers no such records") {
		t.Fatalf("got problems %q, want one for www.deleg.verify.test. A", res.Problems)
	}
}

func TestVerifyComparesValuesAndTTL(t *testing.T) {
	tests := []struct {
		name string
		e    expectation
		got  *served
		want string
	}{
		{"same", expectation{name: "a.", typ: "A", ttl: 300, values: []string{"192.0.2.1"}}, &served{300, []string{"192.0.2.1"}}, ""},
		{"other value", expectation{name: "a.", typ: "A", ttl: 300, values: []string{"192.0.2.1"}}, &served{300, []string{"192.0.2.9"}}, "a. A: written 192.0.2.1, but the server answers 192.0.2.9"},
		{"other ttl", expectation{name: "a.", typ: "A", ttl: 300, values: []string{"192.0.2.1"}}, &served{60, []string{"192.0.2.1"}}, "a. A: written with TTL 300, but the server answers TTL 60"},
		{"missing", expectation{name: "a.", typ: "A", ttl: 300, values: []string{"192.0.2.1"}}, &served{}, "a. A: written, but the server answers no such records (want 192.0.2.1)"},
		{"gone", expectation{name: "a.", typ: "A", gone: true}, &served{}, ""},
		{"still there", expectation{name: "a.", typ: "A", gone: true}, &served{300, []string{"192.0.2.1"}}, "a. A: deleted, but the server still answers 192.0.2.1"},
		{"aaaa spelled otherwise", expectation{name: "a.", typ: "AAAA", ttl: 300, values: []string{"2001:DB8:0::1"}}, &served{300, []string{"2001:db8::1"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := compare(tc.e, tc.got); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVerifyByZoneTransfer checks that an apply of 30 rrsets verifies
// with one zone transfer and no other DNS query (issue 13: it was one
// query per rrset), counted where they arrive, and that the transfer
// still sees a record changed behind site's back between write and
// verify.
func TestVerifyByZoneTransfer(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "axfr.test."
	srv.CreateZone(t, zone)
	want := manyA(zone, 30)
	t.Run("one transfer", func(t *testing.T) {
		p := newDNSProxy(t, srv.DNSAddr)
		d, run := testDriver(), newRun(srv)
		d.VerifyAddr = func(*model.Zone, *backends.Run) string { return p.addr }
		sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
		if got := p.counts(); got["A"] != 30 || len(got) != 1 {
			t.Errorf("the plan asked %v, want one A query per created rrset (30)", got)
		}
		p.reset()
		res := mustApply(t, d, sp, run)
		if got := p.counts(); len(got) != 1 || got["AXFR"] != 1 {
			t.Errorf("the server saw %v, want exactly one AXFR", got)
		}
		if res.Queries != 1 {
			t.Errorf("reported %d DNS queries, want 1", res.Queries)
		}
	})
	t.Run("changed behind site's back", func(t *testing.T) {
		want := append([]*model.RRset{}, want...)
		for i := range want {
			want[i] = rr(want[i].Name, "A", 300, fmt.Sprintf("10.1.0.%d", i))
		}
		p := newDNSProxy(t, srv.DNSAddr)
		p.before = func() {
			srv.Replace(t, zone, pdnstest.RRset{Name: "h3.axfr.test.", Type: "A", TTL: 300, Records: []string{"10.9.9.9"}})
		}
		d, run := testDriver(), newRun(srv)
		d.VerifyAddr = func(*model.Zone, *backends.Run) string { return p.addr }
		sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
		res, err := d.Apply(context.Background(), sp, run)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) != 1 || res.Problems[0] != "h3.axfr.test. A: written 10.1.0.3, but the server answers 10.9.9.9" {
			t.Errorf("got problems %q, want one for h3", res.Problems)
		}
		if got := p.counts(); got["AXFR"] != 1 || len(got) != 1 {
			t.Errorf("the server saw %v, want exactly one AXFR", got)
		}
	})
}

// TestVerifyFallsBackWhenTransferRefused: a server that refuses AXFR is
// asked one query per rrset, and a note says why and how to avoid it.
func TestVerifyFallsBackWhenTransferRefused(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "noaxfr.test."
	srv.CreateZone(t, zone)
	var want []*model.RRset
	for i := range 5 {
		want = append(want, rr(fmt.Sprintf("h%d.noaxfr.test.", i), "A", 300, fmt.Sprintf("10.0.0.%d", i)))
	}
	p := newDNSProxy(t, srv.DNSAddr)
	p.refuseAXFR = true
	d, run := testDriver(), newRun(srv)
	d.VerifyAddr = func(*model.Zone, *backends.Run) string { return p.addr }
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
	p.reset() // the plan's check before creating names (hidden.go)
	res := mustApply(t, d, sp, run)
	if got := p.counts(); got["AXFR"] != 1 || got["A"] != 5 {
		t.Errorf("the server saw %v, want 1 AXFR and 5 A queries", got)
	}
	if res.Queries != 6 {
		t.Errorf("reported %d DNS queries, want 6", res.Queries)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "zone noaxfr.test.: verified with one query per changed rrset (5), not one zone transfer") ||
		!strings.Contains(res.Notes[0], "allow-axfr-ips") {
		t.Errorf("got notes %q, want one saying the transfer was refused", res.Notes)
	}
}

// TestVerifyTransferHidesOccluded: a record below a delegation is in the
// zone transfer, but a query gets a referral; verification by transfer
// says so as a query would (incident 2).
func TestVerifyTransferHidesOccluded(t *testing.T) {
	z := servedZone{
		{"deleg.z.", "NS"}:    {ttl: 60, values: []string{"ns.elsewhere."}},
		{"www.deleg.z.", "A"}: {ttl: 60, values: []string{"192.0.2.1"}},
		{"deleg.z.", "A"}:     {ttl: 60, values: []string{"192.0.2.2"}},
		{"dn.z.", "DNAME"}:    {ttl: 60, values: []string{"other."}},
		{"x.dn.z.", "A"}:      {ttl: 60, values: []string{"192.0.2.3"}},
		{"ok.z.", "A"}:        {ttl: 60, values: []string{"192.0.2.4"}},
		{"z.", "NS"}:          {ttl: 60, values: []string{"ns.z."}},
	}
	for _, tc := range []struct {
		name, typ string
		hidden    bool
	}{
		{"www.deleg.z.", "A", true},
		{"deleg.z.", "A", true},
		{"deleg.z.", "NS", false},
		{"x.dn.z.", "A", true},
		{"dn.z.", "DNAME", false},
		{"ok.z.", "A", false},
		{"z.", "NS", false},
	} {
		if got := z.answer("z.", tc.name, tc.typ); (got == nil) != tc.hidden {
			t.Errorf("%s %s: got %v, want hidden %v", tc.name, tc.typ, got, tc.hidden)
		}
	}
}

func TestVerifyAddrChoice(t *testing.T) {
	z := &model.Zone{Name: "x.test.", Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: "http://192.0.2.5:8081"}}}
	tests := []struct {
		name string
		dns  string // site.cue's dns:
		env  string
		want string
	}{
		{"env names the address", "", "127.0.0.1:5353", "127.0.0.1:5353"},
		{"env turns it off", "", "off", ""},
		{"default is the API host on port 53", "", "", "192.0.2.5:53"},
		{"site.cue names the address, over the env", "127.0.0.1:5300", "127.0.0.1:5353", "127.0.0.1:5300"},
		{"site.cue turns it off, over the env", "off", "127.0.0.1:5353", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z.Provider.PowerDNS.DNSAddr = tc.dns
			run := runstate.Start(backends.NewRun())
			run.Getenv = func(k string) string {
				if k == EnvDNSAddr {
					return tc.env
				}
				return ""
			}
			if got := (&Driver{}).verifyAddr(z, run); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVerifyUnreachableAddressIsAProblem(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "noaddr.test."
	srv.CreateZone(t, zone)
	d, run := testDriver(), newRun(srv)
	// A TCP port nothing listens on, and UDP answered by nobody: refused
	// at once on loopback.
	d.VerifyAddr = func(*model.Zone, *backends.Run) string { return "127.0.0.1:1" }
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, rr("a.noaddr.test.", "A", 300, "192.0.2.1"), rr("b.noaddr.test.", "A", 300, "192.0.2.2")), run)
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "could not verify at 127.0.0.1:1") {
		t.Errorf("got %q, want one problem saying verification could not run", res.Problems)
	}
}

func TestRdataCutsTheHeader(t *testing.T) {
	tests := []struct{ rr, want string }{
		{"a.example. 300 IN A 192.0.2.1", "192.0.2.1"},
		{"a.example. 300 IN MX 10 MX.Example.", "10 mx.example."},
		{`a.example. 300 IN TXT "a b" "c"`, `"a b" "c"`},
		{`a.example. 300 IN CAA 0 issue "letsencrypt.org"`, `0 issue "letsencrypt.org"`},
		{"a.example. 300 IN SRV 10 5 5060 Sip.Example.", "10 5 5060 sip.example."},
	}
	for _, tc := range tests {
		t.Run(tc.rr, func(t *testing.T) {
			rr, err := dns.NewRR(tc.rr)
			if err != nil {
				t.Fatal(err)
			}
			if got := rdata(rr); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRdataFastPath holds the address shortcut in rdata to what miekg/dns
// prints for the whole record.
func TestRdataFastPath(t *testing.T) {
	for _, s := range []string{
		"a.example. 300 IN A 192.0.2.1",
		"a.example. 300 IN A 0.0.0.0",
		"a.example. 300 IN AAAA 2001:db8::1",
		"a.example. 300 IN AAAA 2001:DB8:0:0:0:0:0:1",
		"a.example. 300 IN AAAA ::",
		"a.example. 300 IN AAAA ::ffff:192.0.2.1",
		"a.example. 300 IN AAAA fe80::1:2:3:4",
	} {
		t.Run(s, func(t *testing.T) {
			rr, err := dns.NewRR(s)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rdata(rr), rdataPrinted(rr); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// manyA is n A rrsets hN.zone, one address each.
func manyA(zone string, n int) []*model.RRset {
	var out []*model.RRset
	for i := range n {
		out = append(out, rr(fmt.Sprintf("h%d.%s", i, zone), "A", 300, fmt.Sprintf("10.0.0.%d", i)))
	}
	return out
}

// TestVerifyRefusedSaysTheServerDoesNotServeTheZone: a DNS port that
// answers REFUSED is not serving the zone, though the API wrote it: the
// provider's dns: names another server, or PowerDNS has not loaded a
// zone created outside its API (pdnsutil) into its zone cache yet. The
// problem says both, not only the rcode.
func TestVerifyRefusedSaysTheServerDoesNotServeTheZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "refused.test."
	srv.CreateZone(t, zone)
	p := newDNSProxy(t, srv.DNSAddr)
	p.refuseAll = true
	d, run := testDriver(), newRun(srv)
	d.VerifyAddr = func(*model.Zone, *backends.Run) string { return p.addr }
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, rr("a.refused.test.", "A", 300, "192.0.2.1")), run)
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	want := "zone refused.test.: could not verify at " + p.addr + ": query a.refused.test. A: server answered REFUSED: it does not serve zone refused.test., though the API took the changes: check that dns: of the zone's provider in site.cue is this PowerDNS's DNS address; a zone created outside the API (pdnsutil) is served once PowerDNS's zone cache takes it in (zone-cache-refresh-interval, 300 s by default)"
	if len(res.Problems) != 1 || res.Problems[0] != want {
		t.Errorf("got problems %q, want [%q]", res.Problems, want)
	}
}
