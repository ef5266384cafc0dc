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
