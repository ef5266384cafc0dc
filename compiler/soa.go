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
	// The providers' rules apply below too (their ranges), so they are
	// known before the fields are read.
	ruled := servedRules(z)
	if r.Primary != nil {
		b.soaPrimary(at(sp, "primary"), s, *r.Primary, z.Name, ruled)
	}
	if r.Mbox != nil {
		m, err := rdata.Mbox(*r.Mbox)
		if err != nil {
			b.errorf(at(sp, "mbox"), "%v", err)
		}
		s.Mbox = m
	}
	// A provider may take narrower ranges than DNS does (rules.SOARules:
	// Cloudflare's zone DNS settings).
fields:
	for _, f := range []struct {
		name string
		v    *int64
		dst  **uint32
	}{
		{"refresh", r.Refresh, &s.Refresh},
		{"retry", r.Retry, &s.Retry},
		{"expire", r.Expire, &s.Expire},
		{"minimum", r.Minimum, &s.Minimum},
	} {
		if f.v == nil {
			continue
		}
		for _, pr := range ruled {
			if err := pr.r.SOAError(f.name, *f.v); err != nil {
				b.errorf(at(sp, f.name), "%v", err)
				continue fields
			}
		}
		u := uint32(*f.v) // the schema holds it to 1..2^31-1
		*f.dst = &u
	}
	z.SOA = s
}

// soaPrimary reads soa.primary, the SOA MNAME. A provider that serves
// its own name servers as the primary of a zone it hosts (Cloudflare,
// whose mname setting only names a server for outgoing zone transfers)
// refuses it in its rules, rather than have it silently ignored.
func (b *builder) soaPrimary(p []string, s *model.SOA, primary, zone string, rs []ruled) {
	for _, pr := range rs {
		if err := pr.r.PrimaryError(); err != nil {
			b.errorf(p, "%v", err)
			return
		}
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
