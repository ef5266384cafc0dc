package journal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
	"github.com/site-tools/site/compiler/words"
)

// Undo is the inverse of one entry, planned as an ordinary apply: the
// spec's graph with each record set the entry touched set back to its
// before-image, and each VM and network field it changed (Rewrite),
// observed and planned by the ordinary planner (so the order, CNAME↔A
// swaps included, and the gates are apply's), then checked (Check):
// what someone changed since is refused.
type Undo struct {
	Entry *Entry
	// dns are the entry's DNS changes by key; their zones, by step.
	dns   map[string]Change
	zones map[string]bool
	// res are the undos of the entry's VM and network steps, by step
	// (undores.go).
	res map[string]*resUndo
	// Skipped are lines about what the undo leaves as it is.
	Skipped []string
	// Partial is true when the entry changed more than the undo puts
	// back (--only dns).
	Partial bool
}

// NewUndo plans to undo e. Storage changes, and VM and network changes
// journalled without their image, cannot be undone: an entry holding
// some is refused unless dnsOnly (--only dns), which leaves everything
// but DNS as it is.
func NewUndo(e *Entry, dnsOnly bool) (*Undo, error) {
	u := &Undo{Entry: e, dns: map[string]Change{}, zones: map[string]bool{}, res: map[string]*resUndo{}}
	var other []string
	var libvirt []Change
	for _, c := range e.Changes {
		switch {
		case c.Provider != "":
			// The same record set was written to each provider: keyed
			// alike, the undo would put back one provider's before-image
			// on both.
			return nil, fmt.Errorf("journal entry %s changed zone %s on provider %s, one of several providers of the zone, and undoing a zone on several providers is not built: put it back through the spec (edit it, then site apply)", e.ID, c.Zone, c.Provider)
		case (c.Phase == plan.PhaseVM || c.Phase == plan.PhaseNetwork) && !dnsOnly:
			libvirt = append(libvirt, c)
		case c.Phase != plan.PhaseDNS:
			other = append(other, c.Key)
		case c.Zone == "":
			u.Skipped = append(u.Skipped, fmt.Sprintf("%s: a change of the zone itself (%s), not of a record set: not undone (site undo never deletes a zone or unsigns one); left as it is", c.Key, c.Action))
		default:
			u.dns[c.Key] = c
			u.zones[c.Step] = true
		}
	}
	more, err := u.addResources(libvirt)
	if err != nil {
		return nil, err
	}
	other = append(other, more...)
	if len(other) > 0 && !dnsOnly {
		return nil, fmt.Errorf("journal entry %s changed %s that site undo cannot put back (%s): storage changes, and VM or network changes journalled without their fields' before-image (by a site older than that), are not undone: undo its DNS changes alone with --only dns, and put the rest back through the spec",
			e.ID, words.Count(len(other), "thing"), visible.Short(strings.Join(other, ", ")))
	}
	u.Partial = len(other) > 0
	for _, k := range other {
		u.Skipped = append(u.Skipped, visible.Short(k)+": not undone (--only dns), left as it is")
	}
	if len(u.dns) == 0 && len(u.res) == 0 {
		return nil, fmt.Errorf("journal entry %s changed no DNS record set, VM or network field that site undo can put back", e.ID)
	}
	return u, nil
}

// DNSOnly reports whether the undo changes DNS alone (--only dns).
func (u *Undo) DNSOnly() bool { return len(u.res) == 0 }

// Targets are the steps the undo needs: the zones, VMs and networks
// the entry changed.
func (u *Undo) Targets() []string {
	out := make([]string, 0, len(u.zones)+len(u.res))
	for s := range u.zones {
		out = append(out, s)
	}
	for s := range u.res {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Rewrite sets, in each zone of g the entry changed, the record sets it
// touched back to their before-images: a record set the apply created
// is no longer wanted (and so deleted, being the tenant's), one it
// deleted or changed is wanted as it was. The zones are copies: the
// tenant's model stays as loaded.
func (u *Undo) Rewrite(g *graph.Graph) error {
	found := map[string]bool{}
	for _, s := range g.Steps {
		if !u.zones[s.ID] || s.Zone == nil {
			continue
		}
		if s.Tenant != u.Entry.Tenant {
			return fmt.Errorf("zone %s belongs to tenant %s in the spec now, not to %s, whose apply journal entry %s changed it: site undo refuses to write another tenant's zone", s.Zone.Name, s.Tenant, u.Entry.Tenant, u.Entry.ID)
		}
		found[s.ID] = true
		z := *s.Zone
		z.RRsets = u.rrsets(&z)
		if err := u.soa(&z); err != nil {
			return err
		}
		s.Zone = &z
	}
	for id := range u.zones {
		if !found[id] {
			return fmt.Errorf("journal entry %s changed %s, which is not in the scope of this run (the spec no longer declares the zone, or PATH leaves it out): site undo writes only zones the spec declares", u.Entry.ID, id)
		}
	}
	return u.rewriteResources(g)
}

// rrsets are z's wanted record sets with the entry's set back.
func (u *Undo) rrsets(z *model.Zone) []*model.RRset {
	var out []*model.RRset
	for _, w := range z.RRsets {
		if _, touched := u.dns[dnsplan.Key(z.Name, w.Name, w.Type)]; !touched {
			out = append(out, w)
		}
	}
	for _, c := range u.dns {
		if c.Zone != z.Name || c.Before == nil || c.Type == "SOA" {
			continue
		}
		out = append(out, &model.RRset{Name: c.Name, Type: c.Type, TTL: c.Before.TTL, Values: slices.Clone(c.Before.Values),
			Proxied: c.Before.Proxied, Writer: model.Writer{Kind: model.WriterZoneRecords, Tenant: z.Tenant,
				Element: "journal entry " + u.Entry.ID}})
	}
	slices.SortFunc(out, dnsplan.Compare)
	return out
}

// soa sets z's soa to the before-image of the entry's SOA change of
// z, when it has one: every field but the serial, the server's.
func (u *Undo) soa(z *model.Zone) error {
	for _, c := range u.dns {
		if c.Zone != z.Name || c.Type != "SOA" {
			continue
		}
		s, err := soaBack(c)
		if err != nil {
			return fmt.Errorf("%w: site undo cannot put it back", err)
		}
		z.SOA = s
	}
	return nil
}

// Check refuses the undo's plan p when someone changed since the apply
// a record set it would put back (what is live is not what the apply
// wrote), or when p would change what the apply did not (the spec and
// what is live differ there: that is an apply's to do, not an undo's).
// Every refused key is named.
func (u *Undo) Check(p *plan.Plan, steps map[string]*backends.StepPlan) error {
	var changed, beyond []string
	rchanged, rbeyond := u.checkResources(steps)
	for _, c := range p.Changes {
		if u.res[c.Step] != nil || c.Phase == plan.PhaseSecrets {
			continue
		}
		if !u.zones[c.Step] {
			// A step the undo's steps need (a VM's network or pool):
			// what it would change, the entry did not.
			if !onlyPending(c, steps[c.Step]) {
				rbeyond = append(rbeyond, fmt.Sprintf("  %s %s", c.Action, c.Key))
			}
			continue
		}
		j, ok := u.dns[c.Key]
		if !ok {
			beyond = append(beyond, fmt.Sprintf("  %s %s", c.Action, c.Key))
			continue
		}
		if live := rrset(c.Before); !live.Same(j.After) && (j.Type != "SOA" || !sameSOA(live, j.After)) {
			changed = append(changed, fmt.Sprintf("  %s: the apply wrote %s, live is %s", c.Key, j.After, live))
		}
	}
	var msg []string
	if len(changed) > 0 {
		msg = append(msg, fmt.Sprintf("%s changed by someone else since journal entry %s; site undo puts back only what that apply left as it wrote it:\n%s",
			words.Count(len(changed), "record set was", "record sets were"), u.Entry.ID, strings.Join(changed, "\n")))
	}
	if len(beyond) > 0 {
		msg = append(msg, fmt.Sprintf("the undo would also change %s that journal entry %s did not (the spec and what is live differ there): converge the spec with site apply first, or revert it, then undo:\n%s",
			words.Count(len(beyond), "record set", "record sets"), u.Entry.ID, strings.Join(beyond, "\n")))
	}
	msg = append(msg, resourceRefusals(u.Entry.ID, rchanged, rbeyond)...)
	if len(msg) == 0 {
		u.explain(p)
		return nil
	}
	return fmt.Errorf("site undo refused, nothing was changed: %s", strings.Join(msg, "\n"))
}

// explain gives the undo's changes their reason: the planner's "no
// longer in the spec" is untrue of a record set the spec still holds.
// A gate's reason (how many go at once) is kept.
func (u *Undo) explain(p *plan.Plan) {
	for i := range p.Changes {
		c := &p.Changes[i]
		if _, ok := u.dns[c.Key]; !ok || len(c.Gates) > 0 {
			continue
		}
		if c.Action == plan.ActionDelete {
			c.Reason = "written by journal entry " + u.Entry.ID + ", which is undone"
		} else {
			c.Reason = "as it was before journal entry " + u.Entry.ID
		}
	}
}
