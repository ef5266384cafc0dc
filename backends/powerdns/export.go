package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	record "github.com/site-tools/site/compiler/rdata"
)

// Export reads zone (its Tenant, Name and Provider.PowerDNS) with one GET
// and returns what a tenant file would have to say to want exactly it.
// Rrsets owned by another site tenant are left out: they are that
// tenant's to declare. So is the apex NS unless this tenant owns it.
func (d *Driver) Export(ctx context.Context, zone *model.Zone, run *backends.Run) (*backends.ZoneSnapshot, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	live, c, err := d.readZone(ctx, zone, run)
	if err != nil {
		return nil, err
	}
	s := &backends.ZoneSnapshot{}
	for _, l := range live.Sets {
		switch {
		case !l.HasData():
			continue // a comment without records serves nothing
		case !record.IsType(l.Type):
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s %s: type %s is not in the tenant language; left as it is, site will not touch it", l.Name, l.Type, l.Type))
		case l.Irregular:
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s %s: has disabled records; left as it is, declare it by hand to manage it", l.Name, l.Type))
		case l.Type == "NS" && l.Name == zone.Name && l.Owner != zone.Tenant:
			// The apex NS came with the zone and site never touches it
			// unless a spec names it.
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s NS: the apex NS belongs to the zone's setup; left as it is, declare it to manage it", l.Name))
			s.Apex = append(s.Apex, apexSet(l.Name, l.Type, l.TTL, l.Values))
		case l.Owner != "" && l.Owner != zone.Tenant:
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s %s: owned by site tenant %s; left to that tenant", l.Name, l.Type, l.Owner))
		default:
			s.RRsets = append(s.RRsets, &model.RRset{Name: l.Name, Type: l.Type, TTL: l.TTL, Values: append([]string(nil), l.Values...),
				Writer: model.Writer{Kind: model.WriterZoneRecords, Tenant: zone.Tenant}})
		}
	}
	if soa := live.SOA; soa != nil {
		// First: a master file starts with its SOA.
		s.Apex = append([]*model.RRset{apexSet(soa.Name, soa.Type, soa.TTL, soa.Values)}, s.Apex...)
	}
	// One more request: a signed zone's spec says dnssec: true, or the
	// next diff would read as if signing were not wanted.
	keys, err := d.cryptokeys(ctx, c, zone.Name)
	if err != nil { // a backend that keeps no keys lists none
		return nil, fmt.Errorf("export zone %s: read its keys at %s: %w", zone.Name, c.base, err)
	}
	s.DNSSEC = hasActive(keys)
	s.Sort()
	return s, nil
}

// apexSet is the zone's SOA or apex NS as read, for the BIND master
// file of an export (ZoneSnapshot.Apex): never part of the spec.
func apexSet(name, typ string, ttl uint32, values []string) *model.RRset {
	return &model.RRset{Name: name, Type: typ, TTL: ttl, Values: append([]string(nil), values...)}
}

// MarkOwned puts zone.Tenant's owner marker on every rrset of zone.RRsets
// that lacks it, with one comments-only PATCH (served data unchanged);
// see backends.MarkOwned.
func (d *Driver) MarkOwned(ctx context.Context, zone *model.Zone, run *backends.Run) (int, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	return backends.MarkOwned(ctx, d, zone, run)
}

// readZone reads an existing zone with one GET, for export and disown,
// which have nothing to do with a zone that is not there.
func (d *Driver) readZone(ctx context.Context, zone *model.Zone, run *backends.Run) (*observation, *client, error) {
	c, err := d.newClient(graph.ZoneStep(zone), run)
	if err != nil {
		return nil, nil, err
	}
	var live *observation
	err = d.retry(ctx, func(ctx context.Context) error {
		z, err := c.api.Zones.Get(ctx, zone.Name)
		if err == nil {
			// An export of a partial answer would leave records out of
			// the tenant file, and the next apply would not know them.
			if err = complete(z, zone.Name); err == nil {
				live = observe(z)
			}
		}
		return err
	})
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return nil, nil, fmt.Errorf("zone %s does not exist at %s (server %s): check --zone and --server", zone.Name, c.base, zone.Provider.PowerDNS.Server)
		}
		return nil, nil, fmt.Errorf("read zone %s at %s: %w", zone.Name, c.base, err)
	}
	return live, c, nil
}
