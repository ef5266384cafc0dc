package compiler

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// Address space is granted like names. A nat or isolated network's
// prefix is routed to its guests on its host, and a network overlapping
// another there is refused, whichever tenant's came first; so a tenant
// free to pick any prefix could take every other tenant's room on the
// host with one wide network (10.0.0.0/8, or 0.0.0.0/1 beside
// 128.0.0.0/1), and with a NAT network's route the host's own traffic to
// those addresses. site.cue grants a tenant address space (cidrs), its
// networks lie inside it, and two tenants' grants never overlap.

// grantedCIDR is one prefix of a grant's cidrs.
type grantedCIDR struct {
	prefix netip.Prefix
	pos    model.Pos
	path   string // where in site.cue, as a diagnostic's Path
}

// privateV4 is where a network of a tenant granted no cidrs lies: the
// private address space of RFC 1918, which no public host is reached
// at; and defaultMaxBits bounds how wide it may be there, so that one
// tenant's network leaves room for the others' on its host (a /16 is
// 65,534 guests).
var privateV4 = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
}

const defaultMaxBits = 16

// readCIDRs reads the cidrs of tenant tp's grant, reporting a prefix
// that is not an IPv4 network address; it returns the ones that are.
func readCIDRs(raw []string, tp []string, pos *positions, errorf func([]string, string, ...any)) *[]grantedCIDR {
	out := []grantedCIDR{}
	for i, s := range raw {
		cp := at(tp, "cidrs", fmt.Sprint(i))
		p, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			errorf(cp, "%q is not a CIDR prefix; write it like \"10.77.0.0/16\"", s)
		case !p.Addr().Is4():
			errorf(cp, "%q is not IPv4; networks are IPv4 prefixes, so grant one like \"10.77.0.0/16\"", s)
		case p.Masked() != p:
			errorf(cp, "%q has host bits set; write the network address %q", s, p.Masked().String())
		default:
			out = append(out, grantedCIDR{prefix: p, pos: pos.pos(cp...), path: cuePath(cp...)})
		}
	}
	return &out
}

// cidrOverlaps reports cidrs of two tenants that share addresses, at
// the later grant (the one likelier to be new), naming both.
func (o *operator) cidrOverlaps() Diagnostics {
	type held struct {
		tenant string
		grantedCIDR
	}
	var all []held
	for _, t := range slices.Sorted(maps.Keys(o.grants)) {
		if cs := o.grants[t].cidrs; cs != nil {
			for _, c := range *cs {
				all = append(all, held{t, c})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b held) int {
		if a.pos.Line != b.pos.Line {
			return a.pos.Line - b.pos.Line
		}
		return a.pos.Col - b.pos.Col
	})
	var diags Diagnostics
	for i, again := range all {
		for _, first := range all[:i] {
			if first.tenant == again.tenant || !first.prefix.Overlaps(again.prefix) {
				continue
			}
			diags = append(diags, Diagnostic{Pos: again.pos, Related: []model.Pos{first.pos}, Path: again.path,
				Msg: fmt.Sprintf("cidr %s of tenant %s overlaps cidr %s of tenant %s: a tenant's networks take their addresses from its cidrs, and networks on one host never share addresses, so two tenants' cidrs never overlap; grant tenant %s a prefix tenant %s does not hold, or grant both to one tenant",
					again.prefix, again.tenant, first.prefix, first.tenant, again.tenant, first.tenant)})
		}
	}
	return diags
}

// addressSpace checks that network n's prefix (canonical) is tenant's
// to take, at path: inside one of the cidrs its grant g names, or,
// without any, in private space, no wider than /16 and outside every
// other tenant's cidrs.
func (b *builder) addressSpace(tenant string, g *grant, path []string, n *model.Network) bool {
	p := netip.MustParsePrefix(n.CIDR)
	if g.cidrs != nil {
		var granted []string
		for _, c := range *g.cidrs {
			if c.prefix.Bits() <= p.Bits() && c.prefix.Contains(p.Addr()) {
				return true
			}
			granted = append(granted, c.prefix.String())
		}
		list := strings.Join(granted, ", ")
		if list == "" {
			list = "none"
		}
		b.errorf(path, "network %s's cidr %s lies outside the cidrs site.cue grants tenant %s (%s): a network takes its prefix on its host, and a tenant's networks take only the address space granted to it; pick a prefix inside one, or ask the operator to add %q to its cidrs",
			n.Name, p, tenant, list, p.String())
		return false
	}
	private := slices.ContainsFunc(privateV4, func(q netip.Prefix) bool { return q.Bits() <= p.Bits() && q.Contains(p.Addr()) })
	switch {
	case !private:
		b.errorf(path, "network %s's cidr %s is not private address space (%s), and site.cue grants tenant %s no cidrs: its route on the host would take the host's own traffic to those addresses; pick a prefix in private space, or ask the operator to grant it: tenants: %s: cidrs: [%q]",
			n.Name, p, prefixList(privateV4), tenant, tenant, p.String())
		return false
	case p.Bits() < defaultMaxBits:
		b.errorf(path, "network %s's cidr %s is wider than /%d, and site.cue grants tenant %s no cidrs: without a grant a network is a /%d or narrower, so that one tenant's network leaves room for the others' on its host; use a narrower prefix, or ask the operator to grant it: tenants: %s: cidrs: [%q]",
			n.Name, p, defaultMaxBits, tenant, defaultMaxBits, tenant, p.String())
		return false
	}
	for _, other := range slices.Sorted(maps.Keys(b.op.grants)) {
		cs := b.op.grants[other].cidrs
		if other == tenant || cs == nil {
			continue
		}
		for _, c := range *cs {
			if !c.prefix.Overlaps(p) {
				continue
			}
			where := "lies in"
			if c.prefix.Bits() > p.Bits() {
				where = "holds"
			}
			b.related(path, []model.Pos{c.pos}, "network %s's cidr %s %s %s, which site.cue grants tenant %s: a tenant granted no cidrs takes none of another tenant's; pick a prefix outside it, or ask the operator to grant tenant %s cidrs of its own: tenants: %s: cidrs: [%q]",
				n.Name, p, where, c.prefix, other, tenant, tenant, p.String())
			return false
		}
	}
	return true
}

func prefixList(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}
