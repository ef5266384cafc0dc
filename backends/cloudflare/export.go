package cloudflare

import (
	"context"
	"fmt"
	"sort"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// Export reads zone (its Tenant, Name and Provider.Cloudflare) and
// returns what a tenant file would have to say to want exactly it. Left
// out, and so never touched by site: types the language cannot say,
// records another site tenant owns, names whose records disagree on
// proxied (the language says it once per name), and RRsets whose
// records disagree on the TTL (DNS has one per RRset). Types at one
// name with different TTLs are kept: the spec says them with ttls. A
// proxied name is exported with proxied: true. A CNAME at the apex,
// which Cloudflare flattens, is exported as the ALIAS it reads as. A
// zone whose DNSSEC is active or pending at Cloudflare says dnssec: true.
func (d *Driver) Export(ctx context.Context, zone *model.Zone, run *backends.Run) (*backends.ZoneSnapshot, error) {
	step := graph.ZoneStep(zone)
	api, _, err := d.client(step, run)
	if err != nil {
		return nil, err
	}
	obs, err := d.observe(ctx, api, zone)
	if err != nil {
		return nil, err
	}
	s := &backends.ZoneSnapshot{}
	for _, u := range obs.unmanaged {
		s.Skipped = append(s.Skipped, u+": type not in the tenant language; left as it is, site will not touch it")
	}
	byName := map[string]map[string][]record{}
	for _, r := range obs.records {
		switch {
		case r.owner != "" && r.owner != zone.Tenant:
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s %s %s: owned by site tenant %s; left to that tenant", r.name, r.typ, r.value, r.owner))
			continue
		}
		if byName[r.name] == nil {
			byName[r.name] = map[string][]record{}
		}
		byName[r.name][r.typ] = append(byName[r.name][r.typ], r)
	}
	for name, types := range byName {
		proxied := map[bool]bool{}
		for _, recs := range types {
			for _, r := range recs {
				proxied[r.proxied] = true
			}
		}
		if len(proxied) > 1 {
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s: some of its records are proxied and some not, and the language says proxied once per name; left as it is, declare it by hand to manage it", name))
			continue
		}
		for typ, recs := range types {
			// Types at one name may differ in TTL (the spec says it
			// with ttls); the records of one RRset may not, in DNS.
			ttls := map[uint32]bool{}
			vals := make([]string, 0, len(recs))
			for _, r := range recs {
				ttls[r.ttl] = true
				vals = append(vals, r.value)
			}
			if len(ttls) > 1 {
				s.Skipped = append(s.Skipped, fmt.Sprintf("%s %s: its records have %d different TTLs, and an RRset has one in DNS; left as it is, give them one TTL to manage it", name, typ, len(ttls)))
				continue
			}
			sort.Strings(vals)
			s.RRsets = append(s.RRsets, &model.RRset{Name: name, Type: typ, TTL: recs[0].ttl, Values: vals, Proxied: recs[0].proxied,
				Writer: model.Writer{Kind: model.WriterZoneRecords, Tenant: zone.Tenant}})
		}
	}
	// One more request: a zone Cloudflare signs exports with dnssec:
	// true, so that site diff goes on reporting its DS.
	sec, err := readDNSSEC(ctx, api, obs.zoneID, obs.zone)
	if err != nil {
		return nil, err
	}
	s.DNSSEC = sec.Status == "active" || sec.Status == "pending"
	// And one for the SOA, which Cloudflare keeps in the zone's settings,
	// not among its records: the zone file of an export starts with it.
	// The spec never holds it, so a token that may not read the settings
	// costs the zone file its SOA, said, not the export.
	if soa, err := readSOA(ctx, api, obs.zoneID, obs.zone); err != nil {
		s.Skipped = append(s.Skipped, fmt.Sprintf("%s SOA: not read (%v); a zone file written of this export lacks it", obs.zone, err))
	} else {
		r := soa.rrset(obs.zone)
		s.Apex = []*model.RRset{{Name: r.Name, Type: r.Type, TTL: r.TTL, Values: r.Values}}
	}
	s.Sort()
	return s, nil
}

// MarkOwned puts zone.Tenant's owner marker on every record of
// zone.RRsets that lacks it (comment-only patches through the batch
// endpoint; a record's previous comment is replaced, since Cloudflare
// keeps one per record); see backends.MarkOwned.
func (d *Driver) MarkOwned(ctx context.Context, zone *model.Zone, run *backends.Run) (int, error) {
	return backends.MarkOwned(ctx, d, zone, run)
}
