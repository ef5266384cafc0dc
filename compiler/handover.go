package compiler

import (
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// This file builds a tenant's single names (dns: names): names site.cue
// grants it on their own (names:) inside another tenant's zone. Once
// every tenant is built, handNames puts each in the zone that holds it
// and tells that zone the name is no longer its own, so that one apply
// that sees the name leave the zone's spec and arrive in the other
// tenant's rewrites the owner marker in place (backends/dnsplan), with
// no moment where the name does not resolve.

// singleTTL is a single name's TTL when it gives none: the zone's
// default is the other tenant's to choose, and may change under it.
const singleTTL = 300

// singleNames builds tenant's dns: names, one Zone per name, whose Name
// is provisional (the name's parent, so that a CNAME is not at an apex)
// until handNames finds the zone that holds it.
func (b *builder) singleNames(tenant string, g *grant, tp []string, raw map[string]*rawNamed) []*model.Zone {
	var out []*model.Zone
	for _, key := range b.inFileOrder(at(tp, "dns", "names"), slices.Collect(maps.Keys(raw))) {
		np := at(tp, "dns", "names", key)
		fq, err := dnsname.Canonical(key, ".")
		if err != nil {
			b.errorf(np, "%v", err)
			continue
		}
		if !b.grantedSingle(tenant, np, fq) {
			continue
		}
		rn := raw[key]
		_, parent, _ := strings.Cut(fq, ".")
		z := &model.Zone{Tenant: tenant, Name: parent, TTL: singleTTL, Pos: b.pos.pos(np...)}
		z.Provider = b.provider(tenant, g, at(np, "provider"), rn.Provider)
		z.RRsets = b.records(tenant, np, cuePath(np[2:]...), fq, z, &rn.rawName)
		out = append(out, z)
	}
	return out
}

// grantedSingle reports whether site.cue grants tenant the single name
// fq (names:), saying what to do when not.
func (b *builder) grantedSingle(tenant string, path []string, fq string) bool {
	c, ok := b.op.claims[fq]
	switch {
	case ok && c.single && c.tenant == tenant:
		return true
	case ok && c.single:
		b.related(path, []model.Pos{c.pos}, "name %s is granted to tenant %s in site.cue (names:), not to tenant %s: a name has one writer; remove it from this file, or ask the operator to move the grant",
			fq, c.tenant, tenant)
	default:
		b.errorf(path, "name %s is not a single name site.cue grants tenant %s: dns: names holds only names the operator grants on their own (tenants: %s: names: [%q]); a name of the tenant's own domains goes in one of its zones",
			fq, tenant, tenant, strings.TrimSuffix(fq, "."))
	}
	return false
}

// handNames puts each tenant's single names in the zone that holds them,
// the most specific zone declared above the name by any tenant loaded
// (zones: each zone's first declaration), merging the names of one zone
// into one Zone. The zone's own records at the name are a second
// writer: one writer per name holds at every commit, so the zone's
// tenant gives the name up in the same change that grants it.
func (c *checker) handNames(spec *model.Spec, zones map[string]*model.Zone) {
	for _, t := range spec.Tenants {
		if len(t.Names) == 0 {
			continue
		}
		byZone := map[string]*model.Zone{}
		var out []*model.Zone
		for _, n := range t.Names {
			if len(n.RRsets) == 0 {
				continue // reported where it was built
			}
			fq := n.RRsets[0].Name
			path := cuePath("tenants", t.Name, "dns", "names", strings.TrimSuffix(fq, "."))
			z := c.holdingZone(t, n, fq, path, zones)
			if z == nil {
				continue
			}
			if c.belowCut(z, fq, n.Pos, path) {
				continue
			}
			if i := slices.IndexFunc(z.RRsets, func(rs *model.RRset) bool { return rs.Name == fq }); i >= 0 {
				rs := z.RRsets[i]
				c.two(rs.Writer.Pos, n.Pos, path, "%s is written by tenant %s (zone %s) and granted to tenant %s in site.cue (names:): two writers; tenant %s removes it from its spec in the change that grants it, and one apply of both tenants hands it over without a gap (site help handover)",
					fq, z.Tenant, z.Name, t.Name, z.Tenant)
				continue
			}
			if m := byZone[z.Name]; m != nil {
				m.RRsets = append(m.RRsets, n.RRsets...)
				continue
			}
			n.Name, n.Within = z.Name, z.Tenant
			byZone[z.Name] = n
			out = append(out, n)
		}
		for _, n := range out {
			sortRRsets(n.RRsets)
		}
		t.Names = out
	}
}

// holdingZone returns the zone that holds fq, tenant t's single name
// (provisional zone n), reporting when there is none to write it in.
func (c *checker) holdingZone(t *model.Tenant, n *model.Zone, fq, path string, zones map[string]*model.Zone) *model.Zone {
	var z *model.Zone
	for p := fq; p != "." && z == nil; {
		_, p, _ = strings.Cut(p, ".")
		if p == "" {
			p = "."
		}
		z = zones[p]
	}
	switch {
	case z == nil:
		c.diags = append(c.diags, Diagnostic{Pos: n.Pos, Path: path, Msg: "no tenant declares a zone that holds " + fq +
			": a single name is written into the zone of the tenant whose domain it lies in; that tenant declares the zone first"})
	case z.Tenant == t.Name:
		c.diags = append(c.diags, Diagnostic{Pos: n.Pos, Related: []model.Pos{z.Pos}, Path: path, Msg: fq + " lies in zone " + z.Name +
			" of tenant " + t.Name + " itself: write it in that zone's records and remove it from dns: names"})
	case len(z.Providers) > 1:
		c.two(n.Pos, z.Pos, path, "%s lies in zone %s, which is on several providers (%s): a single name granted on its own is written to one provider, and site does not write it to each; ask the operator to keep the zone on one provider, or the tenant of zone %s to write the name in its records", fq, z.Name, providerList(z.Providers), z.Name)
	case n.Provider.Name != "" && z.Provider.Name != n.Provider.Name:
		c.two(n.Pos, z.Pos, path, "%s lies in zone %s, which is on provider %s, not %s: write provider: %q", fq, z.Name, z.Provider.Name, n.Provider.Name, z.Provider.Name)
	default:
		return z
	}
	return nil
}

// belowCut reports fq when zone z delegates a name above it (NS below
// the apex): records written into z below its cut are never served,
// as resolvers ask the delegated servers.
func (c *checker) belowCut(z *model.Zone, fq string, at model.Pos, path string) bool {
	for _, rs := range z.RRsets {
		if rs.Type == "NS" && rs.Name != z.Name && rs.Name != fq && dnsname.IsSubdomain(fq, rs.Name) {
			c.two(at, rs.Writer.Pos, path, "%s lies below %s, which zone %s of tenant %s delegates (NS): records written there are never served; ask the operator to grant a name outside the delegation", fq, rs.Name, z.Name, z.Tenant)
			return true
		}
	}
	return false
}

// singlesIn returns the names inside zone that site.cue grants tenants
// other than tenant on their own, each to its tenant (model.Zone.Handed);
// nil when there are none. They come from site.cue alone, not from the
// other tenant's file: a zone applied alone, its neighbours unread,
// still never deletes them.
func (o *operator) singlesIn(zone, tenant string) map[string]string {
	var out map[string]string
	for n, c := range o.claims {
		if c.single && c.tenant != tenant && n != zone && dnsname.IsSubdomain(n, zone) {
			if out == nil {
				out = map[string]string{}
			}
			out[n] = c.tenant
		}
	}
	return out
}
