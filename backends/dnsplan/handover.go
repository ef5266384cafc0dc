package dnsplan

import (
	"fmt"
	"slices"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A name site.cue grants a tenant on its own (names:) lies in another
// tenant's zone. The zone's step leaves it alone (Zone.Handed), and the
// step of the tenant's single names (Zone.Within) plans only them. When
// that step finds the name under the marker of the zone's tenant, the
// name is being handed over: vet has seen that tenant's spec give it up
// (one writer per name), so the same data is taken by rewriting the
// marker in place, an Adopt with no gate (one write, no delete, no
// create, so no query goes unanswered), and new data is an ordinary
// update of the records and the marker, behind the update gates. A
// third tenant's marker is no handover: the ordinary rules gate it.

// handover plans wanted w over l, which carries the marker of the
// tenant whose zone gives the name up; same says the data is w's.
func (p *planner) handover(w *model.RRset, l *RRset, same bool) (Kind, int) {
	from := p.step.Zone.Within
	if same {
		return Adopt, p.change(w.Name, w.Type, plan.ActionAdopt, plan.ImpactNone,
			fmt.Sprintf("handed over from tenant %s, whose spec no longer declares it: the owner marker is rewritten in place, served data unchanged", from))
	}
	ci := p.change(w.Name, w.Type, plan.ActionUpdate, plan.ImpactLive,
		fmt.Sprintf("handed over from tenant %s, whose spec no longer declares it, with new data", from))
	p.updates = append(p.updates, ci)
	// Records and marker in one write: an Update keeps the marker.
	return Overwrite, ci
}

// notThisSteps reports whether live l is outside what this step plans
// or deletes: a name of the zone granted to another tenant on its own
// (the zone's step never deletes it; one of ours there is noted in
// handing), or, for a step of single names, any name that is neither
// wanted nor ours (the zone's other data is its tenant's).
func (p *planner) notThisSteps(l *RRset, handing *[]string) bool {
	z := p.step.Zone
	if to, ok := z.Handed[l.Name]; ok {
		if !l.wanted && !l.ignored && l.HasData() && p.ownsPart(l, p.step.Tenant) {
			*handing = append(*handing, fmt.Sprintf("%s %s: site.cue grants the name to tenant %s, whose apply rewrites the owner marker in place; this zone's apply leaves it as it is", l.Name, l.Type, to))
		}
		return true
	}
	return z.Within != "" && !l.wanted && !p.ownsPart(l, p.step.Tenant)
}

// handingNotes sorts the notes on RRsets of ours handed away.
func handingNotes(notes []string) []string {
	slices.Sort(notes)
	return notes
}
