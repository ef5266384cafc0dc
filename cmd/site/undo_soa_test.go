package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// soaWithoutSerial is the zone's SOA as the server answers it, with
// the serial (PowerDNS's own, counted up on every change) left out.
func soaWithoutSerial(t *testing.T, srv *pdnstest.Server, zone string) string {
	t.Helper()
	got := srv.Query(t, zone, "SOA")
	if len(got) != 1 {
		t.Fatalf("SOA of %s: %q, want one", zone, got)
	}
	f := strings.Fields(got[0])
	if len(f) != 8 {
		t.Fatalf("SOA of %s: %q, want ttl and seven fields", zone, got[0])
	}
	return strings.Join(append(f[:3:3], f[4:]...), " ")
}

// TestUndo_SOAFieldsBackOnPowerDNS: an apply that sets the zone's SOA
// fields (mbox, refresh, minimum) is undone on a real PowerDNS: the SOA
// it serves has every field as before the apply, the serial aside, and
// a later undo of an SOA someone changed since is refused.
func TestUndo_SOAFieldsBackOnPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "soa.example.test."
	spec := func(soa string) string {
		return `package tenants

tenants: office1: {
	domain: "soa.example.test"
	dns: zones: "soa.example.test": {
		provider: "pdns"
		ttl: 300
` + soa + `
		records: www: A: ["192.0.2.1"]
	}
}
`
	}
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"soa.example.test"}, providers: []string{"pdns"}})
	file := writeSpec(t, site, "office1.cue", spec(""))
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply v1: exit %d\n%s%s", code, out, errOut)
	}
	before := soaWithoutSerial(t, srv, zone)
	if err := os.WriteFile(file, []byte(spec(`soa: {mbox: "ops@soa.example.test", refresh: 1234, minimum: 60}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply v2: exit %d\n%s%s", code, out, errOut)
	}
	changed := soaWithoutSerial(t, srv, zone)
	if changed == before || !strings.Contains(changed, "ops.soa.example.test. ") || !strings.Contains(changed, " 1234 ") {
		t.Fatalf("apply v2 did not set the SOA fields: before %q, after %q", before, changed)
	}
	code, out, errOut := siteRun(t, srv, "undo", file, "--yes")
	if code != exitOK {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "SOA") {
		t.Errorf("the undo's plan does not show the SOA:\n%s", out)
	}
	if got := soaWithoutSerial(t, srv, zone); got != before {
		t.Errorf("SOA after the undo: %q, want as before the apply %q", got, before)
	}

	// Redo it (undo the undo) after someone changed the SOA by hand:
	// refused, naming the SOA, and the SOA stays as they left it.
	soa := srv.Query(t, zone, "SOA")[0]
	f := strings.Fields(soa)
	f[4] = "4321" // refresh
	ttl, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	srv.Replace(t, zone, pdnstest.RRset{Name: zone, Type: "SOA", TTL: uint32(ttl), Records: []string{strings.Join(f[1:], " ")}})
	hand := soaWithoutSerial(t, srv, zone)
	code, out, errOut = siteRun(t, srv, "undo", file, "--yes")
	if code != exitError || !strings.Contains(errOut, "changed by someone else") || !strings.Contains(errOut, zone+"/SOA") {
		t.Errorf("undo of an SOA changed since: exit %d, want 1 naming the SOA\n%s%s", code, out, errOut)
	}
	if got := soaWithoutSerial(t, srv, zone); got != hand {
		t.Errorf("a refused undo changed the SOA: %q, want %q", got, hand)
	}
}
