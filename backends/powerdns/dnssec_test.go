package powerdns

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	pdns "github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
)

// queryDO asks srv's DNS port for name/typ with the DO bit set and
// returns the types in the answer section.
func queryDO(t *testing.T, srv *pdnstest.Server, name string, typ uint16) (types []string, answer []dns.RR) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, typ)
	m.SetEdns0(4096, true)
	c := &dns.Client{Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, srv.DNSAddr)
	if err != nil {
		t.Fatalf("query %s %s: %v", name, dns.TypeToString[typ], err)
	}
	for _, rr := range r.Answer {
		types = append(types, dns.TypeToString[rr.Header().Rrtype])
	}
	return types, r.Answer
}

func sorted(s []string) []string { slices.Sort(s); return s }

func liveKeys(t *testing.T, d *Driver, step *graph.Step, srv *pdnstest.Server) []pdns.Cryptokey {
	t.Helper()
	c, err := d.newClient(step, newRun(srv))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := d.cryptokeys(context.Background(), c, step.Zone.Name)
	if err != nil {
		t.Fatalf("list keys: %v", err)
	}
	return keys
}

// TestDNSSECSignsZone: dnssec: true plans "sign zone", apply leaves the
// zone with one active key and signed answers, says which DS the parent
// must publish, and a second plan has nothing to do.
func TestDNSSECSignsZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "signed.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.10"))
	step.Zone.DNSSEC = true
	d, run := testDriver(), newRun(srv)

	sp := mustPlan(t, d, step, run)
	want := []string{"create dns/signed.test. live", "create dns/signed.test./signed.test./DNSKEY live", "create dns/signed.test./www.signed.test./A live"}
	if got := summary(sp.Changes); !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	var reason string
	for _, c := range sp.Changes {
		if strings.HasSuffix(c.Key, "/DNSKEY") {
			reason = c.Reason
		}
	}
	if !strings.HasPrefix(reason, "sign zone") {
		t.Errorf("got reason %q, want it to say sign zone", reason)
	}
	res := mustApply(t, d, sp, run)

	keys := liveKeys(t, d, step, srv)
	if len(keys) != 1 || !pdns.BoolValue(keys[0].Active) || pdns.StringValue(keys[0].KeyType) != "csk" {
		t.Fatalf("got keys %+v, want one active CSK", keys)
	}
	ds := activeDS(keys)
	if len(ds) != 1 || !strings.Contains(strings.Join(res.Notes, "\n"), ds[0]) {
		t.Errorf("got notes %q, want the DS %q", res.Notes, ds)
	}
	if types, _ := queryDO(t, srv, "www."+zone, dns.TypeA); !equalStrings(sorted(types), []string{"A", "RRSIG"}) {
		t.Errorf("got answer types %q for www A with DO, want A and its RRSIG", types)
	}
	if strings.Contains(strings.Join(sp.Notes, "\n"), "DS") {
		t.Errorf("plan that signs: got notes %q, want none of a DS (it is not known yet)", sp.Notes)
	}
	again := mustPlan(t, d, step, run)
	if len(again.Changes) != 0 {
		t.Errorf("second plan: got %q, want no changes", summary(again.Changes))
	}
	// site diff shows the DS of a signed zone, not only apply.
	if want := []string{"DS for the parent: signed.test. IN DS " + ds[0]}; !equalStrings(again.Notes, want) {
		t.Errorf("second plan: got notes %q, want %q", again.Notes, want)
	}
	// Unless a parent zone of the tenant publishes it: then its plan
	// shows the DS, and only when it changes.
	step.Zone.DSParent = "test."
	if sp := mustPlan(t, d, step, run); len(sp.Notes) != 0 {
		t.Errorf("plan with a parent that publishes the DS: got notes %q, want none", sp.Notes)
	}
}

// TestDNSSECUnsignedZoneHasNoNotes: a zone without dnssec plans no notes
// (and reads no keys), so its plan stays as it was.
func TestDNSSECUnsignedZoneHasNoNotes(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "plain-notes.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.11"))
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if sp := mustPlan(t, d, step, run); len(sp.Notes) != 0 || len(sp.Changes) != 0 {
		t.Errorf("got notes %q, changes %q, want none", sp.Notes, summary(sp.Changes))
	}
}

// TestDNSSECParentPublishesChildDS: a parent and its signed child in one
// apply, the child's step first (as the graph orders them): the parent
// planned a pending DS, writes the DS of the key the child got, and
// serves it; both then plan nothing.
func TestDNSSECParentPublishesChildDS(t *testing.T) {
	srv := pdnstest.Shared(t)
	const parent, child = "dsparent.test.", "kid.dsparent.test."
	t.Cleanup(func() {
		srv.Do(context.Background(), "DELETE", "/zones/"+child, nil)
		srv.Do(context.Background(), "DELETE", "/zones/"+parent, nil)
	})
	// The same NS at the child's apex: this server answers the child's
	// NS from the child zone, which verification after apply reads.
	cs := zoneStep(srv, "office1", child, rr("www."+child, "A", 300, "192.0.2.20"), rr(child, "NS", 300, "ns1.example.org."))
	cs.Zone.DNSSEC = true
	ps := zoneStep(srv, "office1", parent, rr(child, "NS", 300, "ns1.example.org."))
	ps.Zone.SignedChildren = append(ps.Zone.SignedChildren, cs.Zone)
	d, run := testDriver(), newRun(srv)

	csp, psp := mustPlan(t, d, cs, run), mustPlan(t, d, ps, run)
	want := []string{"create dns/dsparent.test. live", "create dns/dsparent.test./kid.dsparent.test./DS live", "create dns/dsparent.test./kid.dsparent.test./NS live"}
	if got := summary(psp.Changes); !equalStrings(got, want) {
		t.Fatalf("parent plan: got %q, want %q", got, want)
	}
	mustApply(t, d, csp, run)
	mustApply(t, d, psp, run)

	ds := activeDS(liveKeys(t, d, cs, srv))
	if len(ds) != 1 {
		t.Fatalf("got child DS %q, want one", ds)
	}
	_, answer := queryDO(t, srv, child, dns.TypeDS)
	var served []string
	for _, rr := range answer {
		if d, ok := rr.(*dns.DS); ok {
			served = append(served, strings.ToLower(strings.TrimPrefix(d.String(), d.Hdr.String())))
		}
	}
	if !equalStrings(served, ds) {
		t.Errorf("parent serves DS %q, want the child's %q", served, ds)
	}
	for _, s := range []*graph.Step{cs, ps} {
		if sp := mustPlan(t, d, s, run); len(sp.Changes) != 0 {
			t.Errorf("%s: second plan got %q, want no changes", s.ID, summary(sp.Changes))
		}
	}
}

// TestDNSSECBackendWithoutKeysSaysHow: a server whose backend keeps no
// keys fails the signing with what to change in pdns.conf.
func TestDNSSECBackendWithoutKeysSaysHow(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{NoDNSSEC: true})
	step := zoneStep(srv, "office1", "nokeys.test.")
	step.Zone.DNSSEC = true
	d, run := testDriver(), newRun(srv)
	_, err := d.Apply(context.Background(), mustPlan(t, d, step, run), run)
	if err == nil || !strings.Contains(err.Error(), "gsqlite3-dnssec=yes") {
		t.Errorf("got %v, want an error that says to set gsqlite3-dnssec=yes", err)
	}
}

// TestKeysDS: what a parent publishes for a PowerDNS child, from its
// keys: the DS of its active KSK or CSK; pending while it has no active
// key (its step adds one in this apply); a note, not a pending DS that
// would fail the apply, while its only active key signs no keys.
func TestKeysDS(t *testing.T) {
	const child = "kid.example.test."
	ds := "2371 13 2 " + strings.Repeat("ef", 32)
	key := func(typ string, active bool) pdns.Cryptokey {
		return pdns.Cryptokey{KeyType: pdns.String(typ), Active: pdns.Bool(active), DS: []string{"2371 13 1 " + strings.Repeat("ab", 20), ds}}
	}
	for _, tt := range []struct {
		name    string
		keys    []pdns.Cryptokey
		wantDS  []string
		pending bool
		note    bool
	}{
		{"csk", []pdns.Cryptokey{key("csk", true)}, []string{ds}, false, false},
		{"no keys", nil, nil, true, false},
		{"inactive", []pdns.Cryptokey{key("csk", false)}, nil, true, false},
		{"zsk only", []pdns.Cryptokey{key("zsk", true)}, nil, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := keysDS(child, tt.keys)
			if !equalStrings(got.DS, tt.wantDS) || got.Pending != tt.pending || (got.Note != "") != tt.note {
				t.Errorf("got %+v, want DS %q, pending %v, a note %v", got, tt.wantDS, tt.pending, tt.note)
			}
		})
	}
}

// TestDNSSECPendingDSReplacesTheLiveOne: a parent that already holds a
// DS at a child signed afresh in this apply (its keys were lost, or it
// moved here) plans the pending DS as an update of that DS, not as a
// create, and writes the DS of the child's new key over it.
func TestDNSSECPendingDSReplacesTheLiveOne(t *testing.T) {
	srv := pdnstest.Shared(t)
	const parent, child = "dsreplace.test.", "kid.dsreplace.test."
	const stale = "11111 13 2 " + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	t.Cleanup(func() {
		srv.Do(context.Background(), "DELETE", "/zones/"+child, nil)
		srv.Do(context.Background(), "DELETE", "/zones/"+parent, nil)
	})
	d, run := testDriver(), newRun(srv)
	delegation := rr(child, "NS", 300, "ns1.example.org.")
	mustApply(t, d, mustPlan(t, d, zoneStep(srv, "office1", parent, delegation, rr(child, "DS", 300, stale)), run), run)

	cs := zoneStep(srv, "office1", child, rr("www."+child, "A", 300, "192.0.2.20"), rr(child, "NS", 300, "ns1.example.org."))
	cs.Zone.DNSSEC = true
	ps := zoneStep(srv, "office1", parent, delegation)
	ps.Zone.SignedChildren = append(ps.Zone.SignedChildren, cs.Zone)
	run = newRun(srv)
	csp, psp := mustPlan(t, d, cs, run), mustPlan(t, d, ps, run)
	if got, want := summary(psp.Changes), []string{"update dns/dsreplace.test./kid.dsreplace.test./DS live"}; !equalStrings(got, want) {
		t.Fatalf("parent plan: got %q, want %q", got, want)
	}
	mustApply(t, d, csp, run)
	mustApply(t, d, psp, run)
	ds := activeDS(liveKeys(t, d, cs, srv))
	_, answer := queryDO(t, srv, child, dns.TypeDS)
	var served []string
	for _, rr := range answer {
		if d, ok := rr.(*dns.DS); ok {
			served = append(served, strings.ToLower(strings.TrimPrefix(d.String(), d.Hdr.String())))
		}
	}
	if len(ds) != 1 || !equalStrings(served, ds) {
		t.Errorf("parent serves DS %q, want the child's new %q", served, ds)
	}
}

// TestDelegationWithGlue: a parent's delegation to a child whose name
// server lies inside it carries that server's address (glue), below
// the cut: applied, verified by what the server serves, and converged.
func TestDelegationWithGlue(t *testing.T) {
	srv := pdnstest.Shared(t)
	const parent, child = "glue.test.", "kid.glue.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+parent, nil) })
	d, run := testDriver(), newRun(srv)
	step := zoneStep(srv, "office1", parent,
		rr(child, "NS", 300, "ns1."+child, "ns.example.net."),
		rr("ns1."+child, "A", 300, "192.0.2.53"),
		rr("ns1."+child, "AAAA", 300, "2001:db8::53"))
	mustApply(t, d, mustPlan(t, d, step, run), run) // verified by a zone transfer
	if sp := mustPlan(t, d, step, run); len(sp.Changes) != 0 {
		t.Errorf("second plan got %q, want no changes", summary(sp.Changes))
	}
	// One changed rrset is verified by a query of its own, which the
	// server answers with a referral carrying the glue.
	step.Zone.RRsets[1] = rr("ns1."+child, "A", 300, "192.0.2.54")
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if sp := mustPlan(t, d, step, run); len(sp.Changes) != 0 {
		t.Errorf("third plan got %q, want no changes", summary(sp.Changes))
	}
}
