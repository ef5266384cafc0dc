package compiler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
	"github.com/site-tools/site/compiler/rules"
)

// zoneHead is a zone before its records: its canonical name, TTL and
// the provider its tenant's grant resolves; nil when the tenant may not
// hold it or the name is no zone.
func (b *builder) zoneHead(tenant string, g *grant, zp []string, key string, raw *rawZone) *model.Zone {
	name, err := dnsname.Canonical(key, ".")
	if err != nil {
		b.errorf(zp, "%v", err)
		return nil
	}
	if name == "." || dnsname.IsWildcard(name) {
		b.errorf(zp, "%q cannot be a zone; name the zone's apex, like \"example.net\"", key)
		return nil
	}
	z := &model.Zone{Tenant: tenant, Name: name, Pos: b.pos.pos(zp...)}
	if err := rdata.TTL(raw.TTL); err != nil {
		b.errorf(at(zp, "ttl"), "%v", err)
	} else {
		z.TTL = uint32(raw.TTL)
	}
	if !b.holds(tenant, g, zp, "zone", name) {
		return nil
	}
	b.zoneProviders(tenant, g, zp, z, raw.Provider)
	b.checkRulesKnown(zp, z)
	if z.TTL != 0 {
		if err := b.providerTTL(z, int64(z.TTL)); err != nil {
			b.errorf(at(zp, "ttl"), "%v", err)
		}
	}
	return z
}

// zone builds one zone and the RRsets its records map writes. A VM's
// publish adds its RRsets later (see publish).
func (b *builder) zone(tenant string, g *grant, zp []string, key string, raw *rawZone) *model.Zone {
	z := b.zoneHead(tenant, g, zp, key, raw)
	if z == nil {
		return nil
	}
	b.ignoreRules(zp, z, raw)
	b.soa(zp, z, raw)
	// On Cloudflare, dnssec: true has site report Cloudflare's DNSSEC
	// status and DS; turning it on stays in the dashboard.
	z.DNSSEC = raw.DNSSEC
	if z.DNSSEC && len(z.Providers) > 1 {
		// Each signer would sign with keys of its own, and the parent
		// holds one DS set: site does not yet keep several signers'
		// keys in step (RFC 8901's multi-signer model).
		b.errorf(at(zp, "dnssec"), "dnssec: true is for a zone on one provider; zone %s is on %d (%s), each of which would sign with keys of its own: remove dnssec, or keep one provider", z.Name, len(z.Providers), providerList(z.Providers))
		z.DNSSEC = false
	}
	spelt := make(map[string]string, len(raw.Records))
	// Every name's element path starts the same: rendered once per zone.
	elems := cuePath(at(zp[2:], "records")...) + "."
	order := raw.order
	if order == nil {
		order = b.inFileOrder(at(zp, "records"), slices.Collect(maps.Keys(raw.Records)))
	}
	for _, key := range order {
		rp := at(zp, "records", key)
		fq, ok := b.ownerName(rp, key, z)
		if !ok {
			continue
		}
		if prev, dup := spelt[fq]; dup {
			b.related(rp, []model.Pos{b.pos.pos(at(zp, "records", prev)...)},
				"%q and %q are two spellings of %s; keep one (INCIDENTS.md 2: the retired spelling deletes what the live one wrote)", prev, key, fq)
			continue
		}
		spelt[fq] = key
		z.RRsets = append(z.RRsets, b.records(tenant, rp, elems+cuePath(key), fq, z, raw.Records[key])...)
	}
	b.zoneRules(zp, z, spelt, raw.Records)
	z.Handed = b.op.singlesIn(z.Name, tenant)
	return z
}

// records builds the RRsets at one owner name; elem is rp as cuePath
// renders it from the tenant down.
func (b *builder) records(tenant string, rp []string, elem, fq string, z *model.Zone, raw *rawName) []*model.RRset {
	ttl := z.TTL
	if raw.TTL != nil {
		if err := rdata.TTL(*raw.TTL); err != nil {
			b.errorf(at(rp, "ttl"), "%v", err)
		} else if err := b.providerTTL(z, *raw.TTL); err != nil {
			b.errorf(at(rp, "ttl"), "%v", err)
		} else {
			ttl = uint32(*raw.TTL)
		}
	}
	writer := model.Writer{Kind: model.WriterZoneRecords, Tenant: tenant, Element: elem, Pos: b.pos.pos(rp...)}
	var out []*model.RRset
	for _, t := range listTypes(raw) {
		if rs := b.rrset(rp, fq, z, ttl, writer, t.typ, t.n, t.value); rs != nil {
			out = append(out, rs)
		}
	}
	out = b.targets(rp, fq, z, raw, ttl, writer, out)
	b.typeTTLs(rp, fq, z, raw, out)
	b.proxied(rp, z, raw, out)
	if len(out) == 0 && raw.CNAME == nil && raw.DNAME == nil && raw.ALIAS == nil && !b.hasErrorsUnder(rp) {
		b.errorf(rp, "%s has no records; give at least one type (%s), or remove the name", fq, strings.Join(rdata.Types, ", "))
	}
	return out
}

// rrset builds one RRset of typ from n values, value(i) giving the
// canonical form of the i-th; a value that fails is reported at its
// element. It is nil when there are no values.
func (b *builder) rrset(rp []string, fq string, z *model.Zone, ttl uint32, writer model.Writer, typ string, n int, value func(i int) (string, error)) *model.RRset {
	if n == 0 {
		b.errorf(at(rp, typ), "%s has no values; give at least one, or remove %s", typ, typ)
		return nil
	}
	rs := &model.RRset{Name: fq, Type: typ, TTL: ttl, Writer: writer, Values: make([]string, 0, n)}
	// first finds an earlier equal value: a scan through the few
	// values most names have, a map past those (a map per rrset
	// was most of a cached load's allocations).
	var seen map[string]int
	var index []int // index[k]: the element rs.Values[k] came from
	first := func(v string) (int, bool) {
		if seen != nil {
			j, ok := seen[v]
			return j, ok
		}
		for k, w := range rs.Values {
			if w == v {
				return index[k], true
			}
		}
		return 0, false
	}
	if n > 16 {
		seen = make(map[string]int, n)
	}
	ruled := servedRules(z)
values:
	for i := 0; i < n; i++ {
		v, err := value(i)
		if err != nil {
			b.errorf(elemPath(rp, typ, i), "%s", inZone(err, z.Name))
			continue
		}
		for _, s := range ruled {
			if err := s.r.ValueError(typ, v); err != nil {
				b.errorf(elemPath(rp, typ, i), "%s%v", refusedBy(z, &s.p), err)
				continue values
			}
		}
		if n, err := rdata.RdataLen(typ, v); err == nil && n > rdata.MaxRdata {
			b.errorf(elemPath(rp, typ, i), "this %s record is %d octets on the wire; DNS carries at most %d per record: split the data over several records or names", typ, n, rdata.MaxRdata)
			continue
		}
		if j, dup := first(v); dup {
			b.related(elemPath(rp, typ, i), []model.Pos{b.pos.pos(elemPath(rp, typ, j)...)}, "%s %s is listed twice; remove one", typ, v)
			continue
		}
		if seen != nil {
			seen[v] = i
		} else {
			index = append(index, i)
		}
		rs.Values = append(rs.Values, v)
	}
	sort.Strings(rs.Values)
	if n, err := rdata.MessageLen(fq, typ, rs.Values); err == nil && n > rdata.MaxMessage {
		b.errorf(at(rp, typ), "the %d %s records of %s need a %d-octet answer; a DNS message holds at most %d (over TCP): use fewer or shorter values",
			len(rs.Values), typ, fq, n, rdata.MaxMessage)
	}
	return rs
}

// elemPath is the path of the i-th value of type typ at the name at rp,
// built only for a message about it.
func elemPath(rp []string, typ string, i int) []string {
	return at(rp, typ, strconv.Itoa(i))
}

// providerTTL checks a TTL against the rules of the zone's providers,
// where they take less than DNS does (rules.TTLRange).
func (b *builder) providerTTL(z *model.Zone, ttl int64) error {
	for _, s := range servedRules(z) {
		if err := s.r.TTLError(ttl); err != nil {
			if by := refusedBy(z, &s.p); by != "" {
				return fmt.Errorf("%s%w", by, err)
			}
			return err
		}
	}
	return nil
}

// inZone is err's message, with the advice for a relative target made
// for a record in zone: "www" means www.<zone>, not the top-level name
// "www.". Not in a reverse zone, whose names are no host's.
func inZone(err error, zone string) string {
	var re *rdata.RelativeError
	if errors.As(err, &re) && !strings.HasSuffix(zone, ".arpa.") {
		return re.InZone(err, zone)
	}
	return err.Error()
}

func (b *builder) hasErrorsUnder(path []string) bool {
	prefix := cuePath(path...)
	for _, d := range b.diags {
		if d.Path == prefix || strings.HasPrefix(d.Path, prefix+".") {
			return true
		}
	}
	return false
}

// proxied marks the RRsets at a name proxied: true as served through
// the proxy of the zone's provider, whose rules (rules.Proxy) say which
// types it proxies and the TTL it answers them with (Cloudflare: A,
// AAAA, CNAME and ALIAS, its apex CNAME; 1, "automatic"). That TTL is
// the one wanted, so a ttl beside proxied is refused rather than
// silently dropped; a provider without a proxy refuses proxied.
func (b *builder) proxied(rp []string, z *model.Zone, raw *rawName, out []*model.RRset) {
	if raw.Proxied == nil {
		return
	}
	var px *rules.Rules
	set := ruleSet()
	for _, p := range z.Served() {
		r := set[p.Kind()]
		if r == nil {
			continue // no kind, or none with rules: refused at the zone
		}
		if r.Proxy == nil {
			b.errorf(at(rp, "proxied"), "proxied is %s: zone %s is served by %s provider %q, which has no proxy; remove proxied", set.ProxyOwners(), z.Name, p.Kind(), p.Name)
			return
		}
		if px == nil {
			px = r
		}
	}
	if !*raw.Proxied || px == nil {
		return
	}
	if raw.TTL != nil {
		b.errorf(at(rp, "ttl"), "%v", px.ProxyTTLError(""))
	}
	for _, rs := range out {
		if err := px.ProxyTypeError(rs.Type); err != nil {
			b.errorf(at(rp, rs.Type), "%v", err)
			continue
		}
		if _, ok := raw.TTLs[rs.Type]; ok {
			b.errorf(at(rp, "ttls", rs.Type), "%v", px.ProxyTTLError(rs.Type))
		}
		rs.Proxied, rs.TTL = true, px.Proxy.TTL
	}
}

// signedChildren tells each zone which signed zones of the same tenant
// it is the nearest parent of, so that it publishes their DS. The
// parent's records cannot write that DS themselves: below a zone cut
// they may hold only NS (see zoneRules). Between child and parent no
// name may be granted to another tenant (grantedElsewhere, nil for
// none): the child's DS then belongs in that tenant's zone, below the
// parent's delegation to it, and the child's step notes the DS for
// whoever publishes it.
func signedChildren(zones []*model.Zone, grantedElsewhere func(name string) bool) {
	byName := map[string]*model.Zone{}
	for _, z := range zones {
		byName[z.Name] = z
	}
	for _, child := range zones {
		if !child.DNSSEC {
			continue
		}
		for n := child.Name; ; {
			_, rest, ok := strings.Cut(n, ".")
			if !ok || rest == "" {
				break
			}
			n = rest
			if parent := byName[n]; parent == nil && grantedElsewhere != nil && grantedElsewhere(n) {
				break
			} else if parent != nil {
				// Whatever the providers: a Cloudflare child's step
				// reads the DS Cloudflare shows, a PowerDNS child's
				// its keys, and the parent writes it (backends/dnsplan).
				parent.SignedChildren = append(parent.SignedChildren, child)
				child.DSParent = parent.Name
				break
			}
		}
	}
}
