package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// A DS is the parent's half of a delegation (RFC 4035 §2.4): it sits
// beside the NS RRset that delegates the child, and a resolver looks
// for it only at such a cut. A parent zone that publishes a DS with no
// NS at its name serves data no resolver uses, and the child stays
// unvalidated without a word, so vet warns. Only the parent zone's
// tenant writes its records (a VM publishes only addresses, only into
// its own tenant's zones), so the delegation is the parent's records'
// or nobody's in the spec; live NS written outside site are invisible
// here, which is why this is a warning and why an ignore rule for the
// NS (someone else writes it) silences it. A signed child zone's own
// apex NS are its data, not the delegation.

// dsWithoutDelegation warns of every DS zones would publish, written in
// its records or for a signed child (model.Zone.SignedChildren), at a
// name where its records hold no NS. zones are the first declarations.
func (c *checker) dsWithoutDelegation(spec *model.Spec, zones map[string]*model.Zone) {
	for _, t := range spec.Tenants {
		for _, z := range t.Zones {
			if zones[z.Name] != z {
				continue
			}
			if !c.next(z.Pos) {
				return
			}
			delegated := map[string]bool{}
			for _, rs := range z.RRsets {
				if rs.Type == "NS" && rs.Name != z.Name {
					delegated[rs.Name] = true
				}
			}
			undelegated := func(name string) bool {
				return !delegated[name] && c.ignored(z, name, "NS") == nil
			}
			for _, rs := range z.RRsets {
				if rs.Type != "DS" || rs.Name == z.Name || !undelegated(rs.Name) {
					continue
				}
				// A DS at the apex, below another zone's cut, or at the
				// cut of a zone site signs is an error already
				// (zoneRules, misplaced); one at the cut of a child
				// declared here and signed elsewhere (or another
				// tenant's) is the delegation's, which needs its NS.
				child := zones[rs.Name]
				if zoneCut(parentName(rs.Name), z.Name, zones) != nil || child != nil && child.Tenant == z.Tenant && child.DNSSEC {
					continue
				}
				c.diags = append(c.diags, Diagnostic{Pos: rs.Writer.Pos, Path: writerPath(rs.Writer) + ".DS", Warning: true,
					Msg: fmt.Sprintf("%s has a DS but no NS in zone %s: %s", rs.Name, z.Name, delegate(rs.Name, z, child))})
			}
			for _, child := range z.SignedChildren {
				if !undelegated(child.Name) {
					continue
				}
				c.diags = append(c.diags, Diagnostic{Pos: child.Pos, Related: []model.Pos{z.Pos}, Warning: true,
					Path: cuePath("tenants", child.Tenant, "dns", "zones", strings.TrimSuffix(child.Name, ".")),
					Msg: fmt.Sprintf("zone %s is signed (dnssec: true), so site publishes its DS in zone %s, which has no NS at %s: %s",
						child.Name, z.Name, child.Name, delegate(child.Name, z, child))})
			}
		}
	}
}

// delegate says why a DS at name in parent needs its NS, and what to
// write: the NS the child zone declares at its apex, when it is
// declared here with some.
func delegate(name string, parent, child *model.Zone) string {
	label := cuePath(strings.TrimSuffix(name, "."+parent.Name))
	ns := "[the child zone's name servers]"
	if child != nil {
		for _, rs := range child.RRsets {
			if rs.Name == child.Name && rs.Type == "NS" {
				ns = "[" + quoteAll(rs.Values) + "] (the child zone's apex NS, which delegate nothing by themselves)"
			}
		}
	}
	return fmt.Sprintf("a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates %s; add %s: NS: %s to zone %s's records, or an ignore rule for %s NS if another writer delegates it",
		name, label, ns, parent.Name, label)
}

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// The delegation of a name site.cue grants another tenant is written
// by the parent's tenant (NS at the cut, glue below it), and every
// resolver follows it: the name servers it names answer for all of the
// child's names, and a resolver reaches a name server inside the child
// at the glue's address. So where the child's zone is loaded and says
// what they are (its apex NS, the addresses of those names), the
// parent names only those name servers and only those addresses; else
// the parent could take the child's names by naming a server of its
// own, or a name of the child's with an address of its own.
//
// A subset is safe (it names no server the child did not) and is how a
// change of name servers goes with each tenant's pull request passing
// on its own: the child adds the new server, the parent follows, and
// the parent drops the old before the child does. It is a warning, as
// the two sides should agree (RFC 1034 §4.2.2). A glue name the child's
// zone declares no address at is an error: resolvers would have no
// address for that server but the parent's. Where the child's zone is
// not loaded, names no apex NS, ignores the name or takes its address
// from a DHCP lease, there is nothing to compare, and nothing is.

// delegationsAcrossTenants checks every NS zones write at the apex of a
// zone of another tenant, and its glue, against that zone. zones are
// the first declarations.
func (c *checker) delegationsAcrossTenants(spec *model.Spec, zones map[string]*model.Zone) {
	for _, t := range spec.Tenants {
		for _, z := range t.Zones {
			if zones[z.Name] != z {
				continue
			}
			if !c.next(z.Pos) {
				return
			}
			for _, ns := range z.RRsets {
				child := zones[ns.Name]
				if ns.Type != "NS" || ns.Name == z.Name || child == nil || child.Tenant == z.Tenant {
					continue
				}
				apex := c.ix.of(child).get(child, child.Name, "NS")
				if apex == nil {
					c.childWithoutNS(z, ns, child)
					continue
				}
				c.childNS(z, ns, child, apex)
				// The glue: an address at a name the NS names, below
				// the cut; looked up by the NS's values, not by a scan
				// of the zone per cut.
				ix := c.ix.of(z)
				for _, v := range ns.Values {
					if !dnsname.IsSubdomain(v, ns.Name) {
						continue
					}
					for _, typ := range []string{"A", "AAAA"} {
						if g := ix.get(z, v, typ); g != nil {
							c.childGlue(z, ns, g, zones)
						}
					}
				}
			}
		}
	}
}

// childWithoutNS reports the NS at child's cut in parent while child's
// zone, loaded, names no name servers at its apex: there is nothing the
// delegation may name yet, and whatever it names would answer for all
// of the child's names (site init writes such a zone). An apex NS the
// child leaves to an ignore rule is written outside site: nothing to
// compare, as when the child's file is not loaded.
func (c *checker) childWithoutNS(parent *model.Zone, ns *model.RRset, child *model.Zone) {
	if c.ignored(child, child.Name, "NS") != nil {
		return
	}
	pos, path := c.src.value(ns, nil)
	c.diags = append(c.diags, Diagnostic{Pos: pos, Related: []model.Pos{child.Pos}, Path: path,
		Msg: fmt.Sprintf("%s NS: tenant %s's zone %s names no name servers at its apex (\"@\": NS), so this delegation may name none yet: resolvers ask the name servers a delegation names for every name of tenant %s; tenant %s writes \"@\": NS: [...] in its zone first, then zone %s (tenant %s) names the same",
			ns.Name, child.Tenant, child.Name, child.Tenant, child.Tenant, parent.Name, parent.Tenant)})
}

// childNS compares the NS at child's cut in parent with child's apex
// NS: an error at the first server the child does not name, a warning
// at the NS that leave some out.
func (c *checker) childNS(parent *model.Zone, ns *model.RRset, child *model.Zone, apex *model.RRset) {
	extra, missing := difference(ns.Values, apex.Values)
	label := cuePath(strings.TrimSuffix(ns.Name, "."+parent.Name))
	apexPos, _ := c.src.value(apex, nil)
	d := Diagnostic{Related: []model.Pos{apexPos}}
	d.Pos, d.Path = c.src.value(ns, extra)
	switch {
	case len(extra) > 0:
		d.Msg = fmt.Sprintf("%s NS names %s, which tenant %s's zone %s does not name at its apex (\"@\": NS): resolvers ask the name servers a delegation names for every name of tenant %s, so zone %s (tenant %s) names only the child zone's own; write %s: NS: [%s] (or some of them), or tenant %s adds %s to its \"@\": NS first",
			ns.Name, strings.Join(extra, ", "), child.Tenant, child.Name, child.Tenant, parent.Name, parent.Tenant, label, quoteAll(apex.Values), child.Tenant, strings.Join(extra, ", "))
	case len(missing) > 0:
		d.Warning = true
		d.Msg = fmt.Sprintf("%s NS leaves out %s, which tenant %s's zone %s names at its apex (\"@\": NS): a delegation names the child zone's name servers (RFC 1034 §4.2.2); write %s: NS: [%s] once the child serves from them all",
			ns.Name, strings.Join(missing, ", "), child.Tenant, child.Name, label, quoteAll(apex.Values))
	default:
		return
	}
	c.diags = append(c.diags, d)
}

// childGlue compares glue g, which parent writes below ns's cut for a
// name server ns names, with the addresses the zone holding that name
// declares there: an error at the first address it does not declare,
// or at the glue's type when it declares none of that type; a warning
// at the glue's type when the glue leaves some out.
func (c *checker) childGlue(parent *model.Zone, ns, g *model.RRset, zones map[string]*model.Zone) {
	owner := zoneCut(g.Name, parent.Name, zones)
	if c.ignored(owner, g.Name, g.Type) != nil {
		return // written outside site: nothing to compare
	}
	oix := c.ix.of(owner)
	decl := oix.get(owner, g.Name, g.Type)
	if decl != nil && decl.Lease != nil {
		return // known at plan time only
	}
	label := cuePath(strings.TrimSuffix(g.Name, "."+parent.Name))
	d := Diagnostic{Related: []model.Pos{owner.Pos}}
	d.Pos, d.Path = c.src.value(g, nil)
	if decl == nil {
		if other := oix.get(owner, g.Name, ""); other != nil {
			d.Related = []model.Pos{other.Writer.Pos}
		}
		d.Msg = fmt.Sprintf("%s %s is glue for the delegation of %s, and tenant %s's zone %s declares no %s at %s: resolvers would have no address for that name server but the one zone %s (tenant %s) chooses; tenant %s declares the name server's address in its zone first (%s: %s: [...]) and the glue copies it, or remove this %s",
			g.Name, g.Type, ns.Name, owner.Tenant, owner.Name, g.Type, g.Name, parent.Name, parent.Tenant, owner.Tenant, cuePath(dnsname.Relative(g.Name, owner.Name)), g.Type, g.Type)
		c.diags = append(c.diags, d)
		return
	}
	declPos, _ := c.src.value(decl, nil)
	d.Related = []model.Pos{declPos}
	extra, missing := difference(g.Values, decl.Values)
	if len(extra) > 0 {
		d.Pos, d.Path = c.src.value(g, extra) // at the first address the child does not declare
	}
	what := g.Type + " " + strings.Join(extra, ", ")
	if g.Lease != nil {
		extra, what = []string{"lease"}, g.Type+" from a DHCP lease ("+g.Writer.Element+")"
	}
	switch {
	case len(extra) > 0:
		d.Msg = fmt.Sprintf("%s %s is glue for the delegation of %s, and tenant %s's zone %s declares %s %s there: resolvers reach tenant %s's name server at the glue's address, so the glue holds only addresses the child zone declares; write %s: %s: [%s] in zone %s, or tenant %s declares the address there first",
			g.Name, what, ns.Name, owner.Tenant, owner.Name, g.Type, strings.Join(decl.Values, ", "), owner.Tenant, label, g.Type, quoteAll(decl.Values), parent.Name, owner.Tenant)
	case len(missing) > 0:
		d.Warning = true
		d.Msg = fmt.Sprintf("%s %s leaves out %s, which tenant %s's zone %s declares there: the glue of a delegation is the name server's addresses; write %s: %s: [%s]",
			g.Name, g.Type, strings.Join(missing, ", "), owner.Tenant, owner.Name, label, g.Type, quoteAll(decl.Values))
	default:
		return
	}
	c.diags = append(c.diags, d)
}

// difference returns the values of got that want lacks, and those of
// want that got lacks.
func difference(got, want []string) (extra, missing []string) {
	for _, v := range got {
		if !slices.Contains(want, v) {
			extra = append(extra, v)
		}
	}
	for _, v := range want {
		if !slices.Contains(got, v) {
			missing = append(missing, v)
		}
	}
	return extra, missing
}
