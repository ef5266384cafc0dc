package compiler

import (
	"errors"

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
	// Cloudflare's DNS settings apply below too (their ranges), so the
	// provider is known before the fields are read.
	cloudflare := cloudflareIn(z) != nil
	if r.Primary != nil {
		b.soaPrimary(at(sp, "primary"), s, *r.Primary, z.Name, cloudflare)
	}
	if r.Mbox != nil {
		m, err := rdata.Mbox(*r.Mbox)
		if err != nil {
			b.errorf(at(sp, "mbox"), "%v", err)
		}
		s.Mbox = m
	}
	// Cloudflare's DNS settings take narrower ranges than DNS does (its
	// API reference for the zone's DNS settings).
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

// soaPrimary reads soa.primary, the SOA MNAME. Cloudflare serves its
// own name servers as the primary of a zone it hosts; the mname of its
// DNS settings only names a server for outgoing zone transfers, which
// is not what primary means, so it is refused there rather than
// silently ignored.
func (b *builder) soaPrimary(p []string, s *model.SOA, primary, zone string, cloudflare bool) {
	if cloudflare {
		b.errorf(p, "soa primary: Cloudflare names its own name servers as a zone's SOA primary; remove primary from this zone's soa")
		return
	}
	m, err := rdata.Host(primary)
	var rel *rdata.RelativeError
	switch {
	case errors.As(err, &rel):
		b.errorf(p, "soa primary: %s", rel.InZone(err, zone))
		return
	case err != nil:
		b.errorf(p, "soa primary: %v", err)
		return
	}
	s.MName = m
}
