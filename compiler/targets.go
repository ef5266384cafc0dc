package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// targets adds the single-target types at a name (CNAME, DNAME, ALIAS)
// to out, the list-valued RRsets built there, and reports where one
// cannot stand beside the others.
func (b *builder) targets(rp []string, fq string, z *model.Zone, raw *rawName, ttl uint32, w model.Writer, out []*model.RRset) []*model.RRset {
	others := func() string {
		var types []string
		for _, rs := range out {
			types = append(types, rs.Type)
		}
		return strings.Join(types, ", ")
	}
	one := func(typ string, v *string, exclusive func() string) {
		if v == nil {
			return
		}
		p := at(rp, typ)
		target, err := rdata.Host(*v)
		switch {
		case err != nil:
			if typ != "CNAME" { // the CNAME's messages predate the other types
				err = fmt.Errorf("%s %w", typ, err)
			}
			b.errorf(p, "%s", inZone(err, z.Name))
		case exclusive() != "":
			b.errorf(p, "%s", exclusive())
		case target == fq:
			b.errorf(p, "%s %s points at itself", typ, fq)
		default:
			out = append(out, &model.RRset{Name: fq, Type: typ, TTL: ttl, Values: []string{target}, Writer: w})
		}
	}
	one("CNAME", raw.CNAME, func() string {
		switch {
		case fq == z.Name:
			return "a CNAME at the zone apex " + fq + " is not allowed: the apex holds SOA and NS records, and a CNAME allows no other data; write ALIAS: " + strconv.Quote(*raw.CNAME) + " (served as the target's addresses; on Cloudflare its flattened apex CNAME), or A/AAAA records"
		case len(out) > 0:
			return "CNAME beside " + others() + " at " + fq + ": a name with a CNAME has no other data (RFC 1034 §3.6.2); keep the CNAME or the other records"
		}
		return ""
	})
	// Below the apex an ALIAS stands alone like a CNAME. At the apex it
	// exists so that the apex can point somewhere and keep its other data
	// (NS, MX, TXT, ...; Cloudflare's flattened apex CNAME allows the
	// same): only addresses, which the ALIAS itself serves, clash there.
	one("ALIAS", raw.ALIAS, func() string {
		if raw.CNAME != nil {
			return "ALIAS beside CNAME at " + fq + ": keep one"
		}
		var clash []string
		for _, rs := range out {
			if fq != z.Name || rs.Type == "A" || rs.Type == "AAAA" {
				clash = append(clash, rs.Type)
			}
		}
		switch {
		case len(clash) > 0 && fq == z.Name:
			return "ALIAS beside " + strings.Join(clash, ", ") + " at the apex " + fq + ": the ALIAS serves the target's addresses; keep the ALIAS or the addresses"
		case len(clash) > 0:
			return "ALIAS beside " + strings.Join(clash, ", ") + " at " + fq + ": below the apex an ALIAS stands alone, like a CNAME; keep the ALIAS or the other records"
		}
		return ""
	})
	one("DNAME", raw.DNAME, func() string {
		if raw.CNAME != nil || raw.ALIAS != nil {
			return "DNAME beside CNAME or ALIAS at " + fq + ": a name cannot be both (RFC 6672 §2.4); keep one"
		}
		return ""
	})
	slices.SortFunc(out, func(a, b *model.RRset) int { return strings.Compare(a.Type, b.Type) })
	return out
}

// zoneRules checks what spans names or depends on the provider, once
// every name of zone z is built; spelt maps each name to its key under
// records, and records holds the names as written, for positions.
func (b *builder) zoneRules(zp []string, z *model.Zone, spelt map[string]string, records map[string]*rawName) {
	// Indexed once: each check below asks about a name's ancestors,
	// which a scan of the zone per name would make quadratic.
	ix := indexRRsets(z)
	// Only a zone inside which site.cue grants another tenant a name
	// can hold that tenant's names.
	if below := b.op.grantedBelow(z.Name, z.Tenant); len(below) > 0 {
		away := map[*model.RRset]bool{}
		for _, rs := range z.RRsets {
			if b.delegatedAway(at(zp, "records", spelt[rs.Name], rs.Type), z, rs, ix) {
				away[rs] = true
			}
		}
		for _, rs := range z.RRsets {
			if !away[rs] {
				b.coversGranted(at(zp, "records", spelt[rs.Name], rs.Type), z, rs, ix)
			}
		}
		// Reported once, here: not also as a second writer of the
		// other tenant's names.
		z.RRsets = slices.DeleteFunc(z.RRsets, func(rs *model.RRset) bool { return away[rs] })
		b.nsAboveGrants(zp, z, spelt, records, below)
	}
	for _, rs := range z.RRsets {
		p := at(zp, "records", spelt[rs.Name], rs.Type)
		for n := rs.Name; n != z.Name && n != "." && n != ""; {
			n = parentName(n)
			if d := ix.get(z, n, "DNAME"); d != nil {
				b.errorf(p, "%s %s lies below the DNAME at %s, which redirects every name below it (RFC 6672 §2.3); remove it or the DNAME", rs.Name, rs.Type, d.Name)
			}
		}
		if rs.Type == "DS" && rs.Name == z.Name {
			// The DS of a zone is its parent's data (RFC 4035 §2.4), and
			// PowerDNS refuses it at the apex (HTTP 422 at apply).
			b.errorf(p, "a DS at the apex %s is not allowed: a zone's DS belongs in its parent, at the delegation; write it there (child: DS), or set dnssec: true here and publish the DS its note shows", rs.Name)
		}
		for _, s := range servedRules(z) {
			err := s.r.TypeError(rs.Type)
			if err == nil {
				err = s.r.ApexError(rs.Type, rs.Values, rs.Name == z.Name)
			}
			if err != nil {
				b.errorf(p, "%s%v", refusedBy(z, &s.p), err)
			}
		}
	}
}

// coversGranted reports rs when, from a name of the zone's own, it
// answers for names site.cue grants another tenant below it: a DNAME
// redirects every name below it, delegated or not; a wildcard answers
// for every name below its parent that the zone does not hold, so for a
// granted name until the zone delegates it (an NS there), and for an
// address of a granted RFC 2317 block without its CNAME (see
// wildcardOverBlocks). All would answer for the other tenant, the first
// two at once while its zone does not exist yet.
//
// ix indexes z's RRsets (nil: none, scan).
func (b *builder) coversGranted(path []string, z *model.Zone, rs *model.RRset, ix rrIndex) bool {
	var over string
	switch {
	case rs.Type == "DNAME":
		over = rs.Name
	case dnsname.IsWildcard(rs.Name):
		over = strings.TrimPrefix(rs.Name, "*.")
	default:
		return false
	}
	var covered []string
	var at []model.Pos
	for _, name := range b.op.grantedBelow(over, z.Tenant) {
		if rs.Type == "DNAME" || ix.get(z, name, "NS") == nil {
			covered = append(covered, name)
			at = append(at, b.op.claims[name].pos)
		}
	}
	switch {
	case len(covered) == 0 && rs.Type != "DNAME":
		return b.wildcardOverBlocks(path, z, rs, over, ix)
	case len(covered) == 0:
		return false
	case rs.Type == "DNAME":
		b.related(path, at, "the DNAME at %s redirects every name below it, and %s lies below it, which site.cue grants to another tenant: remove the DNAME, or have it at a name that covers no other tenant's",
			rs.Name, strings.Join(covered, ", "))
	default:
		b.related(path, at, "wildcard %s answers for %s, which site.cue grants to another tenant, while this zone does not delegate it: write the delegation (NS at %s), or narrow the wildcard",
			rs.Name, strings.Join(covered, ", "), strings.Join(covered, ", "))
	}
	return true
}

// nsAboveGrants reports each NS of zone z at its apex or at a cut of
// its own above a name in below (the names site.cue grants other
// tenants below z's apex) that names a server site.cue does not list
// for z's provider. Resolvers ask the servers such an NS names for
// every name below it (most learn a zone's name servers from the zone
// itself, so the apex NS count as much as the parent's delegation),
// and the other tenant's names are below it: z's tenant would choose
// who answers for them. Which servers are the operator's only site.cue
// can say. The NS at a granted name itself is that name's delegation,
// held to the other tenant's zone (delegationsAcrossTenants), and a
// cut above no granted name is the zone's own business. The error is
// at the first server site.cue does not list, or at the NS when it
// lists none.
func (b *builder) nsAboveGrants(zp []string, z *model.Zone, spelt map[string]string, records map[string]*rawName, below []string) {
	for _, p := range z.Served() {
		if p.Name == "" {
			return // a provider not granted: reported already
		}
		b.nsAboveGrantsOn(zp, z, p, spelt, records, below)
	}
}

// nsAboveGrantsOn is nsAboveGrants for one provider of z, whose name
// servers site.cue lists.
func (b *builder) nsAboveGrantsOn(zp []string, z *model.Zone, prov model.Provider, spelt map[string]string, records map[string]*rawName, below []string) {
	listed, declared := b.op.nameservers[prov.Name]
	for _, rs := range z.RRsets {
		if rs.Type != "NS" {
			continue
		}
		if _, tenant, _ := b.op.grantHolder(rs.Name); tenant != z.Tenant {
			continue // at another tenant's name: its delegation
		}
		i := slices.IndexFunc(below, func(g string) bool { return g != rs.Name && dnsname.IsSubdomain(g, rs.Name) })
		if i < 0 {
			continue
		}
		extra, _ := difference(rs.Values, listed.hosts)
		if len(extra) == 0 {
			continue
		}
		granted := below[i]
		c := b.op.claims[granted]
		related := []model.Pos{c.pos}
		where := "makes a zone cut above " + granted
		if rs.Name == z.Name {
			where = "is at the apex of zone " + z.Name + ", above " + granted
		}
		rp := at(zp, "records", spelt[rs.Name])
		if len(listed.hosts) == 0 {
			if declared { // nameservers: []
				related = append([]model.Pos{listed.pos}, related...)
			}
			// The line to write, filled with this NS's servers: the
			// tenant's choice, which only the operator can vouch for.
			b.related(at(rp, "NS"), related, "%s NS %s, which site.cue grants to tenant %s, and site.cue lists no name servers for provider %s (providers: %s: nameservers: [...]): resolvers ask the name servers this NS names for every name below %s, tenant %s's included, so in a zone holding another tenant's name the NS above it name only the operator's name servers; the operator writes providers: %s: nameservers: [%s] in site.cue if those are the name servers that serve provider %s's zones (they are this NS's, not yet the operator's: check them), or remove this NS",
				rs.Name, where, c.tenant, prov.Name, prov.Name, rs.Name, c.tenant, cueLabel(prov.Name), quoteAll(rs.Values), prov.Name)
			continue
		}
		label := cueLabel(spelt[rs.Name])
		b.related(valuePath(rp, "NS", records[spelt[rs.Name]], extra), append([]model.Pos{listed.pos}, related...), "%s NS names %s, which site.cue does not list among provider %s's name servers (%s): this NS %s, which site.cue grants to tenant %s, and resolvers ask the name servers it names for every name below %s, tenant %s's included; write %s: NS: [%s] (or some of them), or have the operator add %s to providers: %s: nameservers in site.cue if they serve that provider's zones",
			rs.Name, strings.Join(extra, ", "), prov.Name, strings.Join(listed.hosts, ", "), where, c.tenant, rs.Name, c.tenant, label, quoteAll(listed.hosts), strings.Join(extra, ", "), prov.Name)
	}
}

// delegatedAway reports rs (see anotherTenants) at path.
func (b *builder) delegatedAway(path []string, z *model.Zone, rs *model.RRset, ix rrIndex) bool {
	held, tenant, away := b.op.anotherTenants(rs, z, ix)
	switch {
	case !away:
	case b.op.claims[held].single:
		b.related(path, []model.Pos{b.op.claims[held].pos}, "%s %s is a single name site.cue grants tenant %s (names:): one writer per name, so zone %s no longer writes it; remove it here (tenant %s writes it with dns: names, and one apply of both tenants hands it over without a gap: site help handover)",
			rs.Name, rs.Type, tenant, z.Name, tenant)
	case dnsname.IsSubdomain(rs.Name, held):
		b.related(path, []model.Pos{b.op.claims[held].pos}, "%s", delegatedAwayMsg(rs, z, held, tenant))
	default:
		if sb, ok := b.op.blockSpelling(rs.Name, z.Tenant); ok && sb.block == held {
			b.related(path, []model.Pos{b.op.claims[held].pos}, "%s", sb.msg(b.op, rs.Type, rs.Name,
				"zone "+z.Name+" writes there nothing, and only the CNAME into the block at each address's own name"))
			break
		}
		a, _ := b.op.grantedBlock(rs.Name) // an address of the block held
		b.related(path, []model.Pos{b.op.claims[held].pos}, "%s", blockMsg(rs, z, a))
	}
	return away
}

// anotherTenants reports whether rs, a record of zone z, lies at or below
// held, a name site.cue grants another tenant inside z (a delegate:
// carve-out, or a domain granted below z's), and is not that
// delegation's data: the zone's tenant may write there only the NS and
// DS at held and the addresses of the name servers those NS name below
// it (glue); anything else would answer for the other tenant's names, at
// once while its zone does not exist yet, and from the zone's server
// whenever a resolver asks it. Or held is an RFC 2317 block site.cue
// grants another tenant, and rs lies at or below the reverse name of an
// address of the block (so not below held), and is not the CNAME into
// the block the zone may hold there (see grantedBlock). site export
// leaves such records out (OperatorFile.AnotherTenants).
// ix indexes z's RRsets (nil: none, scan).
func (o *operator) anotherTenants(rs *model.RRset, z *model.Zone, ix rrIndex) (held, tenant string, away bool) {
	held, tenant, ok := o.grantHolder(rs.Name)
	if ok && tenant != z.Tenant {
		// A single name (names:) is no delegation: nothing of it is the
		// zone's tenant's to write.
		if !o.claims[held].single && (rs.Name == held && (rs.Type == "NS" || rs.Type == "DS") || isGlue(rs, ix.get(z, held, "NS"))) {
			return "", "", false
		}
		return held, tenant, true
	}
	if sb, ok := o.blockSpelling(rs.Name, z.Tenant); ok {
		return sb.block, o.claims[sb.block].tenant, true
	}
	// The CNAME's target in any case: a live one written by hand (site
	// export reads it as the server holds it) names the same.
	a, ok := o.grantedBlock(rs.Name)
	if !ok || a.tenant == z.Tenant || rs.Name == a.rev && rs.Type == "CNAME" && len(rs.Values) == 1 && strings.EqualFold(rs.Values[0], a.cname()) {
		return "", "", false
	}
	return a.block, a.tenant, true
}

func delegatedAwayMsg(rs *model.RRset, z *model.Zone, held, tenant string) string {
	return fmt.Sprintf("%s %s lies in %s, which site.cue grants to tenant %s: zone %s may hold there only the delegation (NS and DS at %s, and the addresses of its name servers below it); tenant %s writes the rest in its own zone",
		rs.Name, rs.Type, held, tenant, z.Name, held, tenant)
}
