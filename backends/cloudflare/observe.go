package cloudflare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// observation is one complete read of a zone.
type observation struct {
	zoneID  string
	zone    string // canonical name
	records []record
	// soa is the zone's SOA settings, read only when the zone sets soa.
	soa *soaSettings
	// dnssec is the zone's DNSSEC details, read only when the zone says
	// dnssec: true; they change nothing, so they are not fingerprinted.
	dnssec *dnssecDetails
	// unmanaged lists "name TYPE" of records of types site does not
	// manage; they are never touched, and export names them.
	unmanaged []string
}

// fingerprint hashes what was observed, so a saved plan can be checked
// for staleness.
func (o *observation) fingerprint() string {
	lines := make([]string, 0, len(o.records))
	for _, r := range o.records {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %d %t %s", r.id, r.name, r.typ, r.value, r.ttl, r.proxied, r.comment))
	}
	sort.Strings(lines)
	if o.soa != nil {
		lines = append(lines, "SOA "+o.soa.rrset(o.zone).Values[0]+fmt.Sprint(" ", o.soa.TTL))
	}
	h := sha256.Sum256([]byte(o.zoneID + "\n" + strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:])
}

// rrsets groups the records into the planner's RRsets. Cloudflare marks
// each record, so an RRset's owner is the Claim of its records' markers,
// Partial when some records carry none. An RRset is Proxied when its
// records are; records of one RRset with different TTLs, or proxied
// beside unproxied ones, are Irregular: site never writes them so, and
// they never equal a wanted RRset. Each RRset's Provider is its
// []record.
func (o *observation) rrsets() *dnsplan.Observed {
	byKey := map[dnsplan.NameType][]record{}
	for _, r := range o.records {
		k := dnsplan.NameType{Name: r.name, Type: r.typ}
		byKey[k] = append(byKey[k], r)
	}
	obs := dnsplan.NewObserved(len(byKey))
	if o.soa != nil {
		obs.SOA = o.soa.rrset(o.zone)
	}
	for k, recs := range byKey {
		l := &dnsplan.RRset{NameType: k, TTL: recs[0].ttl, Proxied: recs[0].proxied, Provider: recs}
		unmarked := false
		for _, r := range recs {
			l.Values = append(l.Values, r.value)
			if r.owner == "" {
				unmarked = true
			} else {
				l.Owner = dnsplan.Claim(l.Owner, r.owner)
			}
			l.Irregular = l.Irregular || r.proxied != l.Proxied || r.ttl != l.TTL
		}
		l.Partial = unmarked && l.Owner != ""
		slices.Sort(l.Values)
		obs.Sets[k] = l
	}
	return obs
}

// records returns the Cloudflare records an RRset was grouped from.
func records(l *dnsplan.RRset) []record { return l.Provider.([]record) }

// observe reads the zone id and every record, page by page. Any failure
// returns an error: a partial observation must plan nothing.
func (d *Driver) observe(ctx context.Context, api *cf.API, z *model.Zone) (*observation, error) {
	name := strings.TrimSuffix(z.Name, ".")
	zones, err := api.ListZonesContext(ctx, cf.WithZoneFilters(name, "", ""))
	if err != nil {
		if notRouted(err) {
			// The first request of the zone's run: nothing was observed
			// that could have changed, so the path itself is wrong.
			return nil, &routeError{err: fmt.Errorf("looking up Cloudflare zone %s at %s: %w; Cloudflare has no such path, so that API URL is wrong: "+
				"fix the provider's api_url in site.cue (or $%s), or leave it out for the public API, %s", name, api.BaseURL, err, EnvAPIURL, DefaultAPIURL)}
		}
		return nil, describe(fmt.Sprintf("looking up Cloudflare zone %s", name), needList(name), err)
	}
	var ids []string
	for _, zz := range zones.Result {
		// Compared in A-labels: the zone of an internationalised name
		// may come back in Unicode (the client sends the filter so).
		if c, err := dnsname.Canonical(strings.TrimSuffix(zz.Name, ".")+".", ""); err == nil && c == z.Name {
			ids = append(ids, zz.ID)
		}
	}
	switch len(ids) {
	case 0:
		return nil, fmt.Errorf("Cloudflare has no zone %s that the token from %s can see: add the zone in Cloudflare (site does not create zones) or give the token Zone:Read and Zone:DNS:Edit on it", name, z.Provider.Cloudflare.Token.Source())
	case 1:
	default:
		return nil, fmt.Errorf("Cloudflare returned %d zones named %s for this token: restrict the token to one account", len(ids), name)
	}
	obs := &observation{zoneID: ids[0], zone: z.Name}
	if obs.records, obs.unmanaged, err = d.listRecords(ctx, api, obs.zoneID, z.Name); err != nil {
		return nil, err
	}
	if z.SOA != nil {
		if obs.soa, err = readSOA(ctx, api, obs.zoneID, name); err != nil {
			return nil, err
		}
	}
	if z.DNSSEC {
		if obs.dnssec, err = readDNSSEC(ctx, api, obs.zoneID, name); err != nil {
			return nil, err
		}
	}
	return obs, nil
}

// listRecords reads every record of the zone with id zoneID, named
// apex, page by page: the records site manages, and "name TYPE" of the
// others. A listing that saw only part of the zone is an error.
func (d *Driver) listRecords(ctx context.Context, api *cf.API, zoneID, apex string) (records []record, unmanaged []string, err error) {
	name := strings.TrimSuffix(apex, ".")
	rc := cf.ZoneIdentifier(zoneID)
	// announced is the most records any page said the zone holds; a
	// listing that ends with fewer (an empty or info-less page before
	// the last) saw only part of the zone, and a record it missed could
	// be foreign data a create would then be written beside, ungated.
	announced, seen, page := 0, 0, 1
	for ; ; page++ {
		recs, info, err := api.ListDNSRecords(ctx, rc, cf.ListDNSRecordsParams{ResultInfo: cf.ResultInfo{Page: page, PerPage: d.perPage()}})
		if err != nil {
			return nil, nil, describe(fmt.Sprintf("listing records of Cloudflare zone %s (page %d)", name, page), needDNSEdit(name), err)
		}
		seen += len(recs)
		if info != nil {
			announced = max(announced, info.Total)
		}
		for _, r := range recs {
			rec, ok, err := fromCloudflare(r, apex)
			if err != nil {
				return nil, nil, fmt.Errorf("zone %s: %w: fix or remove the record in Cloudflare", name, err)
			}
			if ok {
				records = append(records, rec)
			} else {
				unmanaged = append(unmanaged, fqdn(r.Name)+" "+r.Type)
			}
		}
		if info == nil || page >= info.TotalPages || len(recs) == 0 {
			break
		}
	}
	if seen < announced {
		return nil, nil, fmt.Errorf("listing records of Cloudflare zone %s stopped at page %d with %d of the %d records the API announced, so the zone was not fully observed: re-run (it may have changed while it was read)", name, page, seen, announced)
	}
	return records, unmanaged, nil
}
