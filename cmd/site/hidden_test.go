package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestHiddenRecordIsNotOverwrittenWithoutAck: PowerDNS serves a record
// from a second backend that its API does not list (issue 27). site
// diff shows the wanted name as an overwrite needing
// GATE-DNS-OVERWRITE, saying what the server serves there; an apply
// without the ack exits 3 and writes nothing; with --ack
// GATE-DNS-OVERWRITE --yes it writes. A name nothing serves is created
// without a gate.
func TestHiddenRecordIsNotOverwrittenWithoutAck(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{Second: true})
	t.Setenv("PDNS_API_KEY", srv.APIKey)
	t.Setenv(powerdns.EnvDNSAddr, "")
	t.Setenv("NO_COLOR", "1")
	const zone = "hidden.example.test"
	srv.CreateZone(t, zone+".")
	srv.HideRecord(t, zone+".", "www."+zone+".", "A", 300, "192.0.2.66")
	file := tenantFile(t, srv, zone, `
			www: A: ["192.0.2.7"]
			fresh: A: ["192.0.2.8"]`)

	code, stdout, stderr := siteRun(t, srv, "diff", file)
	for _, want := range []string{"~ www A  [overwrite]  needs GATE-DNS-OVERWRITE", `["192.0.2.66"] → ["192.0.2.7"]`, "its API does not list"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff: stdout lacks %q (exit %d):\n%s%s", want, code, stdout, stderr)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "fresh A") && !strings.Contains(line, "+ fresh A  [live]") {
			t.Errorf("diff gates the create of a name nothing serves: %q", line)
		}
	}

	code, stdout, stderr = siteRun(t, srv, "apply", file)
	if code != exitGated || !strings.Contains(stdout+stderr, "GATE-DNS-OVERWRITE") {
		t.Errorf("apply without the ack: exit %d, want %d naming the gate:\n%s%s", code, exitGated, stdout, stderr)
	}
	z := srv.Get(t, zone+".")
	if z.Find("www."+zone+".", "A") != nil || z.Find("fresh."+zone+".", "A") != nil {
		t.Errorf("apply without the ack wrote to the zone: %+v", z)
	}
	if got := srv.Query(t, "www."+zone+".", "A"); !slices.Equal(got, []string{"300 192.0.2.66"}) {
		t.Errorf("after the refused apply the server answers %q, want the hidden record still", got)
	}

	code, stdout, stderr = siteRun(t, srv, "apply", "--ack", "GATE-DNS-OVERWRITE", "--yes", file)
	if code == exitGated {
		t.Fatalf("apply with the ack: exit %d:\n%s%s", code, stdout, stderr)
	}
	z = srv.Get(t, zone+".")
	if r := z.Find("www."+zone+".", "A"); r == nil || !slices.Equal(r.Records, []string{"192.0.2.7"}) {
		t.Errorf("apply with the ack: the API holds %+v, want www A 192.0.2.7 (exit %d):\n%s%s", r, code, stdout, stderr)
	}
	if got := srv.Query(t, "www."+zone+".", "A"); !slices.Equal(got, []string{"300 192.0.2.7"}) {
		t.Errorf("after the acknowledged apply the server answers %q, want the spec's record", got)
	}
}
