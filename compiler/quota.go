package compiler

import (
	"fmt"

	"github.com/site-tools/site/compiler/model"
)

// A grant's limits. Every zone, VM and network a tenant declares costs
// requests on each site diff and apply: a zone is a GET of PowerDNS, or
// a lookup and list pages of Cloudflare, whose account allows 1,200
// requests per 5 minutes to every run of the operator together; a VM or
// a network is reads of its host. A pull-request check diffs a
// tenant's file with the operator's credentials before anyone has read
// it, and three lines of CUE declare 10,000 zones: unbounded, one pull
// request would spend the account's budget that every other tenant's
// apply needs. So site.cue bounds each kind per tenant (limits, with
// the schema's defaults), and the load refuses a tenant past one, which
// is before anything reads a live system, the zones read ahead included
// (early.go). Records cost no request of their own and are not limited.

// rawLimits is a grant's limits as CUE evaluated them, defaults applied.
type rawLimits struct {
	Zones    int `json:"zones"`
	VMs      int `json:"vms"`
	Networks int `json:"networks"`
}

// limits is a grant's limits, each with where site.cue writes it.
type limits struct{ zones, vms, networks limit }

// limit is how many of one kind a tenant may declare. at is where
// site.cue sets it, nil for the schema's default.
type limit struct {
	max int
	at  *model.Pos
}

// readLimits resolves the limits of the grant at tp.
func readLimits(raw rawLimits, pos *positions, tp []string) limits {
	one := func(n int, field string) limit {
		l := limit{max: n}
		if p := at(tp, "limits", field); pos.has(p...) {
			at := pos.pos(p...)
			l.at = &at
		}
		return l
	}
	return limits{zones: one(raw.Zones, "zones"), vms: one(raw.VMs, "vms"), networks: one(raw.Networks, "networks")}
}

// withinLimits reports, at the field that declares them, each kind of
// which tenant declares more than its grant allows, and whether it
// declares none too many.
func (b *builder) withinLimits(tenant string, g *grant, tp []string, raw *rawTenant) bool {
	zones := 0
	if raw.DNS != nil {
		zones = len(raw.DNS.Zones)
	}
	ok := b.withinZones(tenant, g, tp, zones)
	ok = b.within(tenant, at(tp, "vms"), "vms", "VMs", "reads of its host", len(raw.VMs), g.limits.vms) && ok
	return b.within(tenant, at(tp, "networks"), "networks", "networks", "reads of its host", len(raw.Networks), g.limits.networks) && ok
}

// withinZones is withinLimits for zones alone, which early.go asks
// before it gives a zone to read ahead.
func (b *builder) withinZones(tenant string, g *grant, tp []string, zones int) bool {
	return b.within(tenant, at(tp, "dns", "zones"), "zones", "zones", "requests to its provider", zones, g.limits.zones)
}

// within reports n of a kind (field: its name in limits) past l at
// path; cost says what one costs.
func (b *builder) within(tenant string, path []string, field, kind, cost string, n int, l limit) bool {
	if n <= l.max {
		return true
	}
	of := fmt.Sprintf("%d (the default; site.cue sets none)", l.max)
	var related []model.Pos
	if l.at != nil {
		of = fmt.Sprintf("%d in site.cue", l.max)
		related = []model.Pos{*l.at}
	}
	b.related(path, related, "tenant %s declares %d %s, over its limit of %s: each costs %s on every site diff and apply, and a pull request is diffed with the operator's credentials; declare at most %d, or the operator raises the limit in site.cue (tenants: %s: limits: %s: %d)",
		tenant, n, kind, of, cost, l.max, tenant, field, n)
	return false
}
