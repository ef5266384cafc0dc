package dnsplan

// A parent zone of the tenant publishes its signed children's DS
// (model.Zone.SignedChildren), whatever either zone's provider: its step
// depends on theirs (compiler/graph), so when it plans, each child is
// either signed, with a DS to write; signed in this same apply, so that
// its DS is known only once its step has applied (a pending DS: the
// parent plans it as a change, leaves any live DS alone, and its apply
// adds the DS to its plan, see Completer); or unpublished (its signer shows no DS, or it was not
// read in this run), where the parent writes none and leaves what it has
// alone, with a note. How a provider learns a child's DS differs (a
// PowerDNS parent reads a PowerDNS child's keys itself); what it then
// plans is this file's.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// ChildDS is what a parent knows, when it plans, of one signed child's DS.
type ChildDS struct {
	// DS are the records to publish, as "keytag algorithm digesttype
	// digest"; empty while there is none.
	DS []string
	// Pending says the child is signed in this apply: its DS is written
	// once its step has made the key.
	Pending bool
	// Note says why no DS is written when there is none and the child
	// is not pending; any DS at the child stays as it is.
	Note string
}

// SignerChildDS is what child's own step told the parent's of its DS,
// among the parent's Inputs (backends.Output.Signer): the
// provider-neutral way a parent learns it, used for every child whose
// keys the parent's provider cannot read.
func SignerChildDS(in backends.Inputs, child *model.Zone) ChildDS {
	signer, read := in.SignerOf(child.Name)
	switch {
	case !read:
		return ChildDS{Note: fmt.Sprintf("the DS of %s is not written: its %s DNSSEC status was not read in this run (out of scope or not observed), so any DS here stays as it is",
			child.Name, providerName(child))}
	case signer.Pending:
		return ChildDS{Pending: true}
	case len(signer.DS) == 0:
		return ChildDS{Note: fmt.Sprintf("the DS of %s is not written: %s's DNSSEC for it is %s, with no DS to publish; any DS here stays as it is",
			child.Name, providerName(child), signer.Status)}
	}
	return ChildDS{DS: signer.DS}
}

// providerName names the signer of zone, for notes.
func providerName(zone *model.Zone) string {
	if zone.Provider.Cloudflare != nil {
		return "Cloudflare"
	}
	return "PowerDNS"
}

// WithChildDS returns step with the DS of its signed children among its
// wanted RRsets, as childDS says each is, and the children whose DS is
// pending, and the notes of those with none. A pending or unpublished
// child's DS is ignored in this plan, so a live one stays. step itself
// is not changed.
func WithChildDS(step *graph.Step, childDS func(child *model.Zone) (ChildDS, error)) (*graph.Step, []*model.Zone, []string, error) {
	z := step.Zone
	if len(z.SignedChildren) == 0 {
		return step, nil, nil, nil
	}
	zc := *z
	zc.RRsets = slices.Clone(z.RRsets)
	zc.Ignore = slices.Clone(z.Ignore)
	var pending []*model.Zone
	var notes []string
	for _, child := range z.SignedChildren {
		c, err := childDS(child)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(c.DS) == 0 {
			zc.Ignore = append(zc.Ignore, model.IgnoreRule{Name: child.Name, Type: "DS"})
			if c.Pending {
				pending = append(pending, child)
			} else if c.Note != "" {
				notes = append(notes, c.Note)
			}
			continue
		}
		zc.RRsets = append(zc.RRsets, DSRRset(step, child, c.DS))
	}
	slices.SortFunc(zc.RRsets, Compare)
	sc := *step
	sc.Zone = &zc
	return &sc, pending, notes, nil
}

// DSRRset is the DS rrset the zone of step publishes for child.
func DSRRset(step *graph.Step, child *model.Zone, ds []string) *model.RRset {
	return &model.RRset{Name: child.Name, Type: "DS", TTL: step.Zone.TTL, Values: ds,
		Writer: model.Writer{Kind: model.WriterZoneRecords, Tenant: step.Tenant, Element: "dns.zones." + child.Name + ".dnssec", Pos: child.Pos}}
}

// PendingDSRRsets are the DS rrsets step's zone publishes, at apply
// time, for its pending children, each child's DS read with dsOf; the
// error is CheckCompletion's when a child is still not signed.
func PendingDSRRsets(step *graph.Step, pending []*model.Zone, run *backends.Run, dsOf func(*model.Zone) (ChildDS, error)) ([]*model.RRset, error) {
	var still []*model.Zone
	var ds []*model.RRset
	for _, child := range pending {
		c, err := dsOf(child)
		if err != nil {
			return nil, err
		}
		if len(c.DS) == 0 {
			still = append(still, child)
			continue
		}
		ds = append(ds, DSRRset(step, child, c.DS))
	}
	if err := CheckCompletion(step.Zone.Name, still, nil, run); err != nil {
		return nil, err
	}
	return ds, nil
}

// PendingDSChanges are the changes a parent plans for children signed in
// this apply: their DS is written in the same apply, after their step.
// Each replaces the DS the zone holds at the child (kept, which the plan
// ignored meanwhile), else creates it.
func PendingDSChanges(step *graph.Step, pending []*model.Zone, kept Kept) []plan.Change {
	var out []plan.Change
	for _, child := range pending {
		action := plan.ActionCreate
		if _, ok := kept[NameType{Name: child.Name, Type: "DS"}]; ok {
			action = plan.ActionUpdate
		}
		out = append(out, plan.Change{Key: Key(step.Zone.Name, child.Name, "DS"), Step: step.ID, Phase: step.Phase, Tenant: step.Tenant,
			Action: action, Impact: plan.ImpactLive,
			Reason: fmt.Sprintf("the DS of %s, read from its key once its step has signed it in this apply", child.Name)})
	}
	return out
}

// CheckCompletion checks what a plan is completed with at apply time
// (Completer): every pending child must be signed by now, and no
// change may need a gate the run has not acknowledged (the user was
// shown a value to come, not what writing it takes).
func CheckCompletion(zone string, pending []*model.Zone, changes []plan.Change, run *backends.Run) error {
	if len(pending) > 0 {
		var names []string
		for _, c := range pending {
			names = append(names, c.Name)
		}
		return fmt.Errorf("zone %s: %s still has no active key, so its DS cannot be written: apply its zone first (site apply without --target), then again", zone, strings.Join(names, ", "))
	}
	for _, c := range changes {
		for _, g := range c.Gates {
			if !run.Acked[g] {
				return hint.Errorf(hint.Hint{Kind: hint.ReviewThenAcknowledge, Gate: string(g)},
					"zone %s: with the values known only at apply, %s %s needs %s, which this plan did not show", zone, c.Action, c.Key, g)
			}
		}
	}
	return nil
}
