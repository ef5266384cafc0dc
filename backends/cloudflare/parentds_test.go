package cloudflare

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

const kid = "kid." + zoneName

// parentStep is the fixture's zone as the parent of signed zone kid,
// delegated with an NS.
func (f *fixture) parentStep() *graph.Step {
	step := f.step(rr(kid, "NS", 300, "ns1.example.org."))
	step.Zone.SignedChildren = []*model.Zone{{Name: kid, DNSSEC: true}}
	return step
}

// heldDS lists the DS records the fake holds at kid, as content.
func (f *fixture) heldDS() []string {
	var out []string
	for _, r := range f.fake.Records(f.zoneID) {
		if r.Type == "DS" && r.Name == strings.TrimSuffix(kid, ".") {
			out = append(out, r.Content)
		}
	}
	return out
}

// TestParentWritesPendingChildDS: a child signed in this apply is a
// pending DS in the parent's plan; by the parent's apply the child's
// step has told it its DS, and the apply writes it. A child still unsigned by then is an error that says what to do.
func TestParentWritesPendingChildDS(t *testing.T) {
	const ds = "2371 13 2 " + "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45"
	f := newFixture(t)
	step := f.parentStep()
	f.tell(kid, backends.SignerDS{Status: "signed in this apply", Pending: true})
	sp := f.plan(t, step)
	if want := []string{"create " + kid + "/DS", "create " + kid + "/NS"}; !slices.Equal(summary(sp.Changes), want) {
		t.Fatalf("got %q, want %q", summary(sp.Changes), want)
	}
	if _, err := f.drv.Apply(f.ctx(), sp, f.run); err == nil || !strings.Contains(err.Error(), kid+" still has no active key") {
		t.Errorf("child still unsigned: got %v, want an error that says so", err)
	}
	if got := f.heldDS(); len(got) != 0 {
		t.Errorf("child still unsigned: the fake holds DS %q, want none", got)
	}

	f.tell(kid, backends.SignerDS{DS: []string{ds}, Status: "active"})
	f.apply(t, sp)
	if got := f.heldDS(); !slices.Equal(got, []string{ds}) {
		t.Errorf("got DS %q, want [%s]", got, ds)
	}
	if again := f.plan(t, step); len(again.Changes) != 0 {
		t.Errorf("not converged: %v", summary(again.Changes))
	}
}

// TestPendingChildDSReplacesTheLiveOne: a DS the parent already holds at
// a child signed in this apply is planned as an update, then replaced by
// the DS of the child's new key.
func TestPendingChildDSReplacesTheLiveOne(t *testing.T) {
	const stale = "11111 13 2 " + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	const ds = "2371 13 2 " + "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45"
	f := newFixture(t)
	held := f.parentStep()
	held.Zone.SignedChildren = nil
	held.Zone.RRsets = append(held.Zone.RRsets, rr(kid, "DS", 300, stale))
	f.apply(t, f.plan(t, held))

	step := f.parentStep()
	f.tell(kid, backends.SignerDS{Status: "signed in this apply", Pending: true})
	sp := f.plan(t, step)
	if want := []string{"update " + kid + "/DS"}; !slices.Equal(summary(sp.Changes), want) {
		t.Fatalf("got %q, want %q", summary(sp.Changes), want)
	}
	f.tell(kid, backends.SignerDS{DS: []string{ds}, Status: "active"})
	f.apply(t, sp)
	if got := f.heldDS(); !slices.Equal(got, []string{ds}) {
		t.Errorf("got DS %q, want [%s]", got, ds)
	}
}

// TestParentDSSurvivesStaleReplan: when a batch finds the zone changed
// and the apply observes and plans it again, that plan still wants the
// children's DS.
func TestParentDSSurvivesStaleReplan(t *testing.T) {
	const ds = "4711 13 2 " + "2fa14f53e6b15cac9ac77846c7be87862c2a7e9ec0c6cea319db939317f126ed"
	f := newFixture(t)
	step := f.parentStep()
	step.Zone.RRsets = append(step.Zone.RRsets, rr("keys."+zoneName, "A", 300, "203.0.113.10"))
	f.tell(kid, backends.SignerDS{DS: []string{ds}, Status: "active"})
	sp := f.plan(t, step)
	f.add(t, cftest.Record{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300})
	res := f.apply(t, sp)
	if !strings.Contains(strings.Join(res.Notes, "\n"), "re-planned") {
		t.Fatalf("notes %q do not say the zone was re-planned", res.Notes)
	}
	if got := f.heldDS(); !slices.Equal(got, []string{ds}) {
		t.Errorf("got DS %q, want [%s]", got, ds)
	}
}

// TestPendingChildDSApplyWritesOnlyThePlan: the parent's apply adds the
// DS it could not know when it planned, and otherwise sends the plan it
// was given: a record of the tenant's changed meanwhile elsewhere in the
// zone, which a plan made again would have written back unseen, is left
// as it is, for the observation after apply to report.
func TestPendingChildDSApplyWritesOnlyThePlan(t *testing.T) {
	const ds = "2371 13 2 " + "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45"
	f := newFixture(t)
	step := f.parentStep()
	step.Zone.RRsets = append(step.Zone.RRsets, rr("www."+zoneName, "A", 300, "192.0.2.1"))
	f.apply(t, f.plan(t, step))
	step = f.parentStep()
	step.Zone.RRsets = append(step.Zone.RRsets, rr("www."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.SignedChildren = []*model.Zone{{Name: kid, DNSSEC: true}}
	f.tell(kid, backends.SignerDS{Status: "signed in this apply", Pending: true})
	sp := f.plan(t, step)
	if want := []string{"create " + kid + "/DS"}; !slices.Equal(summary(sp.Changes), want) {
		t.Fatalf("got %q, want %q", summary(sp.Changes), want)
	}
	f.add(t, cftest.Record{Name: "www.sjc.example.net", Type: "A", Content: "198.51.100.7", TTL: 300, Comment: Marker("sjc")})

	f.tell(kid, backends.SignerDS{DS: []string{ds}, Status: "active"})
	f.apply(t, sp)
	if got := f.heldDS(); !slices.Equal(got, []string{ds}) {
		t.Errorf("got DS %q, want [%s]", got, ds)
	}
	var www []string
	for _, r := range f.fake.Records(f.zoneID) {
		if r.Name == "www.sjc.example.net" && r.Type == "A" {
			www = append(www, r.Content)
		}
	}
	if slices.Sort(www); !slices.Equal(www, []string{"192.0.2.1", "198.51.100.7"}) {
		t.Errorf("www A is now %q, want it left as it was written meanwhile", www)
	}
}

// TestPendingChildDSRefusedWhenTheLiveDSChanged: the DS the parent
// writes at a pending child was planned against the DS records observed
// there; when those changed by the time of the write, nothing is
// written and the error says to look again.
func TestPendingChildDSRefusedWhenTheLiveDSChanged(t *testing.T) {
	const stale = "11111 13 2 " + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	const meanwhile = "22222 13 2 " + "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	const ds = "2371 13 2 " + "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45"
	f := newFixture(t)
	held := f.parentStep()
	held.Zone.SignedChildren = nil
	held.Zone.RRsets = append(held.Zone.RRsets, rr(kid, "DS", 300, stale))
	f.apply(t, f.plan(t, held))

	step := f.parentStep()
	f.tell(kid, backends.SignerDS{Status: "signed in this apply", Pending: true})
	sp := f.plan(t, step)
	if want := []string{"update " + kid + "/DS"}; !slices.Equal(summary(sp.Changes), want) {
		t.Fatalf("got %q, want %q", summary(sp.Changes), want)
	}
	f.add(t, cftest.Record{Name: strings.TrimSuffix(kid, "."), Type: "DS", TTL: 300, Comment: Marker("sjc"),
		Data: map[string]any{"key_tag": 22222, "algorithm": 13, "digest_type": 2, "digest": strings.Fields(meanwhile)[3]}})

	f.tell(kid, backends.SignerDS{DS: []string{ds}, Status: "active"})
	_, err := f.drv.Apply(f.ctx(), sp, f.run)
	if err == nil || !strings.Contains(err.Error(), kid+" DS changed since it was observed") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v, want an error that the DS changed since it was observed and nothing was written", err)
	}
	if got := f.heldDS(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{stale, meanwhile}) {
		t.Errorf("got DS %q, want the one held and the one written meanwhile", got)
	}
}
