package dnsplan

import (
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/rdata"
)

// soa plans the zone's SOA: the fields its soa sets, over the live
// record, whose serial (and anything unset) stays the server's. A zone
// not yet on the server has no live SOA to start from: the provider
// plans and writes it once it has created the zone (PowerDNS), or the
// zone always exists (Cloudflare).
func (p *planner) soa() {
	want, l := p.step.Zone.SOA, p.obs.SOA
	if want == nil || l == nil || len(l.Values) != 1 {
		return
	}
	s, err := rdata.ParseSOA(l.Values[0])
	if err != nil {
		return // an SOA site cannot read is left as it is
	}
	if want.MName != "" {
		s.MName = want.MName
	}
	if want.Mbox != "" {
		s.RName = want.Mbox
	}
	for _, f := range []struct {
		v   *uint32
		dst *uint32
	}{{want.Refresh, &s.Refresh}, {want.Retry, &s.Retry}, {want.Expire, &s.Expire}, {want.Minimum, &s.Minimum}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	value := s.String()
	if value == l.Values[0] {
		return
	}
	w := &model.RRset{Name: l.Name, Type: "SOA", TTL: l.TTL, Values: []string{value}, Writer: model.Writer{Tenant: p.step.Tenant}}
	ci := p.change(l.Name, "SOA", plan.ActionUpdate, plan.ImpactLive, "the fields the zone's soa sets; the serial stays the server's")
	p.res.Changes[ci].Before = Attrs(l) // the SOA carries no provider data for Hooks.Before
	p.res.Changes[ci].After = attrs(w.TTL, w.Values)
	p.res.Ops = append(p.res.Ops, Op{Kind: Update, Want: w, Values: w.Values, Live: l})
}
