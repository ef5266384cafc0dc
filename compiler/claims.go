package compiler

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// This file answers who holds a name: the claims site.cue grants
// tenants, as domains of their own or by delegation.

// overlaps reports domains of two tenants where one lies below the
// other: only a delegation may carve a name out of another's domain.
func (o *operator) overlaps() Diagnostics {
	var diags Diagnostics
	names := slices.Sorted(maps.Keys(o.claims))
	sort.Slice(names, func(i, j int) bool {
		return len(names[i]) < len(names[j]) || len(names[i]) == len(names[j]) && names[i] < names[j]
	})
	for i, inner := range names {
		c := o.claims[inner]
		if c.delegated {
			continue
		}
		for _, outer := range names[:i] {
			oc := o.claims[outer]
			if oc.tenant != c.tenant && dnsname.IsSubdomain(inner, outer) {
				diags = append(diags, Diagnostic{Pos: c.pos, Related: []model.Pos{oc.pos}, Path: c.path,
					Msg: fmt.Sprintf("domain %s of tenant %s lies inside domain %s of tenant %s: granted domains never overlap; to carve it out of tenant %s's domain on purpose, move it from domains to delegate: [%q]", inner, c.tenant, outer, oc.tenant, oc.tenant, strings.TrimSuffix(inner, "."))})
			}
		}
	}
	return diags
}

// grantedBelow lists, sorted, the names strictly below name that
// site.cue grants a tenant other than tenant.
func (o *operator) grantedBelow(name, tenant string) []string {
	var out []string
	for n, c := range o.claims {
		// A single name is served by the zone it lies in, whose NS and
		// delegations stay that zone's tenant's (handover.go).
		if c.tenant != tenant && !c.single && n != name && dnsname.IsSubdomain(n, name) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// holder returns the claim that covers name most specifically, and its
// name; ok is false when no tenant holds name. A single name (names:)
// covers only itself.
func (o *operator) holder(name string) (string, claim, bool) {
	for n := name; ; {
		if c, ok := o.claims[n]; ok && (!c.single || n == name) {
			return n, c, true
		}
		if n == "." {
			return "", claim{}, false
		}
		_, rest, _ := strings.Cut(n, ".")
		if rest == "" {
			rest = "."
		}
		n = rest
	}
}

// grantHolder is holder as a caller that needs only the claim's
// tenant asks: the claim's name and its tenant.
func (o *operator) grantHolder(name string) (held, tenant string, ok bool) {
	held, c, ok := o.holder(name)
	return held, c.tenant, ok
}
