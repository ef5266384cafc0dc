package compiler

import (
	"sort"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// zone builds one zone and the RRsets its records map writes. A VM's
// publish adds its RRsets later (see publish).
func (b *builder) zone(tenant string, g *grant, zp []string, key string, raw *rawZone) *model.Zone {
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
	z.Provider = b.provider(tenant, g, at(zp, "provider"), raw.Provider)

	spelt := map[string]string{}
	for _, key := range b.inFileOrder(at(zp, "records"), sortedKeys(raw.Records)) {
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
		z.RRsets = append(z.RRsets, b.records(tenant, rp, fq, z, raw.Records[key])...)
	}
	return z
}

// records builds the RRsets at one owner name.
func (b *builder) records(tenant string, rp []string, fq string, z *model.Zone, raw *rawName) []*model.RRset {
	ttl := z.TTL
	if raw.TTL != nil {
		if err := rdata.TTL(*raw.TTL); err != nil {
			b.errorf(at(rp, "ttl"), "%v", err)
		} else {
			ttl = uint32(*raw.TTL)
		}
	}
	writer := model.Writer{Kind: model.WriterZoneRecords, Tenant: tenant, Element: cuePath(rp[2:]...), Pos: b.pos.pos(rp...)}
	var out []*model.RRset
	// add builds one RRset from n values, value(i) giving the canonical
	// form of the i-th; a value that fails is reported at its element.
	add := func(typ string, n int, value func(i int) (string, error)) {
		if n == 0 {
			b.errorf(at(rp, typ), "%s has no values; give at least one, or remove %s", typ, typ)
			return
		}
		rs := &model.RRset{Name: fq, Type: typ, TTL: ttl, Writer: writer}
		seen := map[string]int{}
		for i := 0; i < n; i++ {
			ep := at(rp, typ, strconv.Itoa(i))
			v, err := value(i)
			if err != nil {
				b.errorf(ep, "%v", err)
				continue
			}
			if n, err := rdata.RdataLen(typ, v); err == nil && n > rdata.MaxRdata {
				b.errorf(ep, "this %s record is %d octets on the wire; DNS carries at most %d per record: split the data over several records or names", typ, n, rdata.MaxRdata)
				continue
			}
			if j, dup := seen[v]; dup {
				b.related(ep, []model.Pos{b.pos.pos(at(rp, typ, strconv.Itoa(j))...)}, "%s %s is listed twice; remove one", typ, v)
				continue
			}
			seen[v] = i
			rs.Values = append(rs.Values, v)
		}
		sort.Strings(rs.Values)
		if n, err := rdata.MessageLen(fq, typ, rs.Values); err == nil && n > rdata.MaxMessage {
			b.errorf(at(rp, typ), "the %d %s records of %s need a %d-octet answer; a DNS message holds at most %d (over TCP): use fewer or shorter values",
				len(rs.Values), typ, fq, n, rdata.MaxMessage)
		}
		out = append(out, rs)
	}
	if raw.A != nil {
		add("A", len(raw.A), func(i int) (string, error) { return rdata.A(raw.A[i]) })
	}
	if raw.AAAA != nil {
		add("AAAA", len(raw.AAAA), func(i int) (string, error) { return rdata.AAAA(raw.AAAA[i]) })
	}
	if raw.CAA != nil {
		add("CAA", len(raw.CAA), func(i int) (string, error) {
			c := raw.CAA[i]
			return rdata.CAA(int(c.Flags), c.Tag, c.Value)
		})
	}
	if raw.MX != nil {
		add("MX", len(raw.MX), func(i int) (string, error) { return rdata.MX(int(raw.MX[i].Priority), raw.MX[i].Host) })
	}
	if raw.NS != nil {
		add("NS", len(raw.NS), func(i int) (string, error) { return rdata.Host(raw.NS[i]) })
	}
	if raw.SRV != nil {
		add("SRV", len(raw.SRV), func(i int) (string, error) {
			s := raw.SRV[i]
			return rdata.SRV(int(s.Priority), int(s.Weight), int(s.Port), s.Target)
		})
	}
	if raw.TXT != nil {
		add("TXT", len(raw.TXT), func(i int) (string, error) {
			if t := raw.TXT[i]; t.Parts != nil {
				return rdata.TXTStrings(t.Parts)
			}
			return rdata.TXT(raw.TXT[i].Text), nil
		})
	}
	if raw.CNAME != nil {
		cp := at(rp, "CNAME")
		target, err := rdata.Host(*raw.CNAME)
		switch {
		case err != nil:
			b.errorf(cp, "%v", err)
		case fq == z.Name:
			b.errorf(cp, "a CNAME at the zone apex %s is not allowed: the apex holds SOA and NS records, and a CNAME allows no other data; use A/AAAA records", fq)
		case len(out) > 0:
			var types []string
			for _, rs := range out {
				types = append(types, rs.Type)
			}
			b.errorf(cp, "CNAME beside %s at %s: a name with a CNAME has no other data (RFC 1034 §3.6.2); keep the CNAME or the other records",
				strings.Join(types, ", "), fq)
		case target == fq:
			b.errorf(cp, "CNAME %s points at itself", fq)
		default:
			out = append(out, &model.RRset{Name: fq, Type: "CNAME", TTL: ttl, Values: []string{target}, Writer: writer})
		}
	}
	if len(out) == 0 && raw.CNAME == nil && !b.hasErrorsUnder(rp) {
		b.errorf(rp, "%s has no records; give at least one type (A, AAAA, CNAME, TXT, MX, SRV, CAA, NS), or remove the name", fq)
	}
	return out
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
