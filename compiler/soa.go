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
	if z.Provider.Cloudflare != nil {
		b.errorf(sp, "soa on a Cloudflare zone is not supported yet (Cloudflare keeps the SOA in the zone's DNS settings); remove soa")
		return
	}
	s := &model.SOA{}
	if r.Mbox != nil {
		m, err := rdata.Mbox(*r.Mbox)
		if err != nil {
			b.errorf(at(sp, "mbox"), "%v", err)
		}
		s.Mbox = m
	}
	for _, f := range []struct {
		v   *int64
		dst **uint32
	}{{r.Refresh, &s.Refresh}, {r.Retry, &s.Retry}, {r.Expire, &s.Expire}, {r.Minimum, &s.Minimum}} {
		if f.v != nil {
			u := uint32(*f.v) // the schema holds it to 1..2^31-1
			*f.dst = &u
		}
	}
	z.SOA = s
}
