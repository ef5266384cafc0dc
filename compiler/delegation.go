package compiler

import (
	"fmt"
	"strings"

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
			delegated := map[string]bool{}
			for _, rs := range z.RRsets {
				if rs.Type == "NS" && rs.Name != z.Name {
					delegated[rs.Name] = true
				}
			}
			undelegated := func(name string) bool {
				return !delegated[name] && z.Ignored(name, "NS") == nil
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
