package compiler

import (
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// soa builds what zone z sets of its SOA record.
func (b *builder) soa(zp []string, z *model.Zone, raw *rawZone) {
	r := raw.SOA
	if r == nil {
		return
	}
	sp := at(zp, "soa")
	s := &model.SOA{}
	if r.Mbox != nil {
		m, err := rdata.Mbox(*r.Mbox)
		if err != nil {
			b.errorf(at(sp, "mbox"), "%v", err)
		}
		s.Mbox = m
	}
	// Cloudflare's DNS settings take narrower ranges than DNS does (its
	// API reference for the zone's DNS settings).
	cloudflare := z.Provider.Cloudflare != nil
	for _, f := range []struct {
		name   string
		v      *int64
		dst    **uint32
		lo, hi int64
	}{
		{"refresh", r.Refresh, &s.Refresh, 600, 86400},
		{"retry", r.Retry, &s.Retry, 600, 86400},
		{"expire", r.Expire, &s.Expire, 86400, 2419200},
		{"minimum", r.Minimum, &s.Minimum, 60, 86400},
	} {
		if f.v == nil {
			continue
		}
		if cloudflare && (*f.v < f.lo || *f.v > f.hi) {
			b.errorf(at(sp, f.name), "soa %s %d is outside what Cloudflare takes; use %d to %d", f.name, *f.v, f.lo, f.hi)
			continue
		}
		u := uint32(*f.v) // the schema holds it to 1..2^31-1
		*f.dst = &u
	}
	z.SOA = s
}
