package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestUpdateManyGate (issue 28, item 6): a spec that rewrites 4 of the
// 10 RRsets site owns in a zone (over the 30 % default) is blocked on a
// real PowerDNS with exit 3 and writes nothing; --update-threshold 40
// plans it ungated, and --ack GATE-DNS-UPDATE-MANY lets apply through.
func TestUpdateManyGate(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "upd.test."
	var live []pdnstest.RRset
	var spec []string
	for i := range 10 {
		live = append(live, pdnstest.RRset{Name: fmt.Sprintf("h%d.%s", i, zone), Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
		addr := "192.0.2.1"
		if i < 4 {
			addr = "192.0.2.2"
		}
		spec = append(spec, fmt.Sprintf("h%d: A: [%q]", i, addr))
	}
	srv.CreateZone(t, zone, live...)
	file := tenantFile(t, srv, "upd.test", strings.Join(spec, "\n"))

	code, out, errOut := siteRun(t, srv, "diff", file)
	if code != exitOK || !strings.Contains(out, "GATE-DNS-UPDATE-MANY") || !strings.Contains(out, "4 of the 10 RRsets the spec has in this zone change at once: 40 %, over the 30 % --update-threshold allows") {
		t.Fatalf("diff: exit %d, want 0 and the update gate with its reason\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--update-threshold", "40", file); code != exitOK || strings.Contains(out, "GATE-DNS-UPDATE-MANY") {
		t.Errorf("diff --update-threshold 40: exit %d, want 0 and no gate\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	srv.ResetRequests(zone)
	code, out, errOut = siteRun(t, srv, "apply", file)
	if code != exitGated || !strings.Contains(out+errOut, "GATE-DNS-UPDATE-MANY") {
		t.Fatalf("apply: exit %d, want %d naming GATE-DNS-UPDATE-MANY\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("a gated apply made %d writes, want none", got)
	}
	if code, out, errOut := siteRun(t, srv, "apply", "--ack", "GATE-DNS-UPDATE-MANY", file); code != exitOK {
		t.Fatalf("apply --ack GATE-DNS-UPDATE-MANY: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := srv.Query(t, "h3."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.2"}) {
		t.Errorf("h3 after the acknowledged apply: %q, want 300 192.0.2.2", got)
	}
}
