package compiler

import (
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// typeTTLs sets the TTL of the RRsets at a name that its ttls names
// (ttls: {MX: 3600}): DNS has a TTL per record set, and a zone moved
// from elsewhere often has one per type at a name. Each entry must name
// a type the name has, with a TTL the zone's provider takes; a proxied
// type takes Cloudflare's own TTL, which proxied says.
func (b *builder) typeTTLs(rp []string, fq string, z *model.Zone, raw *rawName, out []*model.RRset) {
	if len(raw.TTLs) == 0 {
		return
	}
	set := map[string]bool{"CNAME": raw.CNAME != nil, "DNAME": raw.DNAME != nil, "ALIAS": raw.ALIAS != nil}
	for _, t := range listTypes(raw) {
		set[t.typ] = true
	}
	for _, typ := range slices.Sorted(maps.Keys(raw.TTLs)) {
		p := at(rp, "ttls", typ)
		ttl := raw.TTLs[typ]
		switch {
		case !rdata.IsType(typ):
			if up := strings.ToUpper(typ); rdata.IsType(up) {
				b.errorf(p, "ttls names %q; record types are upper case: %s", typ, up)
			} else {
				b.errorf(p, "ttls names %q, which is no record type site manages (%s)", typ, strings.Join(rdata.Types, ", "))
			}
			continue
		case !set[typ]:
			b.errorf(p, "ttls sets a TTL for %s, but %s has no %s records; remove it, or add the records", typ, fq, typ)
			continue
		}
		if err := rdata.TTL(ttl); err != nil {
			b.errorf(p, "%v", err)
			continue
		}
		if err := b.providerTTL(z, ttl); err != nil {
			b.errorf(p, "%v", err)
			continue
		}
		for _, rs := range out {
			if rs.Type == typ {
				rs.TTL = uint32(ttl)
			}
		}
	}
}
