package powerdns

import (
	"context"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestClasslessReverseZone: an RFC 2317 classless reverse zone, whose
// name holds a "/", is created with its PTR records on a real PowerDNS,
// served, and converges. (PowerDNS ids it "0=2F26.2.0.192.in-addr.arpa."
// and also takes the name, "/" and all, in its URLs, which go-powerdns
// sends.)
func TestClasslessReverseZone(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "0/26.2.0.192.in-addr.arpa."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	step := zoneStep(srv, "office1", zone,
		rr("5."+zone, "PTR", 300, "www.example.net."),
		rr("6."+zone, "PTR", 300, "mail.example.net."))
	d, run := testDriver(), newRun(srv)
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if again := mustPlan(t, d, step, run); len(again.Changes) != 0 {
		t.Fatalf("not converged after apply: %q", summary(again.Changes))
	}
	if got := srv.Query(t, "5."+zone, "PTR"); len(got) != 1 || got[0] != "300 www.example.net." {
		t.Errorf("5.%s PTR: served %q, want [\"300 www.example.net.\"]", zone, got)
	}
	// A change is a PATCH to the same id.
	step = zoneStep(srv, "office1", zone, rr("5."+zone, "PTR", 300, "www.example.net."))
	mustApply(t, d, mustPlan(t, d, step, run), run)
	if again := mustPlan(t, d, step, run); len(again.Changes) != 0 {
		t.Fatalf("not converged after the delete: %q", summary(again.Changes))
	}
}
