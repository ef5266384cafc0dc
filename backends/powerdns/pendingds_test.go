package powerdns

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
)

// pendingDSRig is a parent zone holding a delegation to a child that
// the same apply signs, planned (child and parent) but not applied.
type pendingDSRig struct {
	srv           *pdnstest.Server
	d             *Driver
	parent, child string
	cs, ps        *graph.Step
}

func newPendingDSRig(t *testing.T, parent string, held ...pdnstest.RRset) *pendingDSRig {
	t.Helper()
	srv := pdnstest.Shared(t)
	child := "kid." + parent
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+child, nil) })
	r := &pendingDSRig{srv: srv, d: testDriver(), parent: parent, child: child}
	srv.CreateZone(t, parent, append([]pdnstest.RRset{
		{Name: child, Type: "NS", TTL: 300, Records: []string{"ns1.example.org."}, Comments: []pdnstest.Comment{marker("office1")}},
		{Name: "www." + parent, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker("office1")}},
	}, held...)...)
	r.cs = zoneStep(srv, "office1", child, rr("www."+child, "A", 300, "192.0.2.20"), rr(child, "NS", 300, "ns1.example.org."))
	r.cs.Zone.DNSSEC = true
	r.ps = zoneStep(srv, "office1", parent, rr(child, "NS", 300, "ns1.example.org."), rr("www."+parent, "A", 300, "192.0.2.1"))
	r.ps.Zone.SignedChildren = append(r.ps.Zone.SignedChildren, r.cs.Zone)
	return r
}

// TestPendingDSApplyWritesOnlyThePlan: the parent's apply adds the DS
// it could not know when it planned, and otherwise sends the plan it was
// given: a record of the tenant's changed meanwhile elsewhere in the
// zone, which a plan made again would have written back unseen, is left
// as it is, for the observation after apply to report.
func TestPendingDSApplyWritesOnlyThePlan(t *testing.T) {
	r := newPendingDSRig(t, "dsonly.test.")
	run := newRun(r.srv)
	csp, psp := mustPlan(t, r.d, r.cs, run), mustPlan(t, r.d, r.ps, run)
	if got, want := summary(psp.Changes), []string{"create dns/dsonly.test./kid.dsonly.test./DS live"}; !equalStrings(got, want) {
		t.Fatalf("parent plan: got %q, want %q", got, want)
	}
	mustApply(t, r.d, csp, run)
	r.srv.Replace(t, r.parent, pdnstest.RRset{Name: "www." + r.parent, Type: "A", TTL: 300, Records: []string{"198.51.100.7"}})

	mustApply(t, r.d, psp, run)
	z := r.srv.Get(t, r.parent)
	ds := activeDS(liveKeys(t, r.d, r.cs, r.srv))
	if got := z.Find(r.child, "DS"); got == nil || !equalStrings(got.Records, ds) {
		t.Errorf("parent holds DS %v, want the child's %q", got, ds)
	}
	if got := z.Find("www."+r.parent, "A"); got == nil || !equalStrings(got.Records, []string{"198.51.100.7"}) {
		t.Errorf("www A written meanwhile is now %+v, want it left as it was written", got)
	}
}

// TestPendingDSRefusedWhenTheLiveDSChanged: the DS the parent writes at
// a pending child was planned against the DS rrset observed there; when
// that has changed by the time of the write, nothing is written and the
// error says to look again.
func TestPendingDSRefusedWhenTheLiveDSChanged(t *testing.T) {
	const stale = "11111 13 2 " + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	const meanwhile = "22222 13 2 " + "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	r := newPendingDSRig(t, "dschanged.test.",
		pdnstest.RRset{Name: "kid.dschanged.test.", Type: "DS", TTL: 300, Records: []string{stale}, Comments: []pdnstest.Comment{marker("office1")}})
	run := newRun(r.srv)
	csp, psp := mustPlan(t, r.d, r.cs, run), mustPlan(t, r.d, r.ps, run)
	if got, want := summary(psp.Changes), []string{"update dns/dschanged.test./kid.dschanged.test./DS live"}; !equalStrings(got, want) {
		t.Fatalf("parent plan: got %q, want %q", got, want)
	}
	mustApply(t, r.d, csp, run)
	r.srv.Replace(t, r.parent, pdnstest.RRset{Name: r.child, Type: "DS", TTL: 300, Records: []string{meanwhile}, Comments: []pdnstest.Comment{marker("office1")}})

	_, err := r.d.Apply(context.Background(), psp, run)
	if err == nil || !strings.Contains(err.Error(), r.child+" DS changed since it was observed") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v, want an error that the DS changed since it was observed and nothing was written", err)
	}
	if got := r.srv.Get(t, r.parent).Find(r.child, "DS"); got == nil || !equalStrings(got.Records, []string{meanwhile}) {
		t.Errorf("parent holds DS %v, want the one written meanwhile", got)
	}
}
