package cloudflare

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

var _ backends.MarkReader = (*Driver)(nil)

// ListZones lists every zone p's token can see, sorted by name: one
// request per 50 zones (backends.MarkReader).
func (d *Driver) ListZones(ctx context.Context, p model.Provider, run *backends.Run) ([]backends.ListedZone, error) {
	api, _, err := d.providerAPI(p, "provider "+p.Name, run)
	if err != nil {
		return nil, err
	}
	zones, err := api.ListZonesContext(ctx)
	if err != nil {
		return nil, describe("listing the zones of Cloudflare provider "+p.Name, "Zone:Read, to list the zones (and Zone:DNS:Read on each to read its records)", err)
	}
	out := make([]backends.ListedZone, 0, len(zones.Result))
	for _, z := range zones.Result {
		name, err := dnsname.Canonical(strings.TrimSuffix(z.Name, ".")+".", "")
		if err != nil {
			return nil, fmt.Errorf("Cloudflare provider %s lists zone %q, which is no DNS name site can read: %w", p.Name, z.Name, err)
		}
		out = append(out, backends.ListedZone{Name: name, ID: z.ID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ZoneMarks lists the records of zone z by the id ListZones gave, page
// by page, and returns its owner markers (backends.MarkReader).
func (d *Driver) ZoneMarks(ctx context.Context, p model.Provider, z backends.ListedZone, run *backends.Run) ([]backends.Mark, error) {
	api, _, err := d.providerAPI(p, "zone "+z.Name, run)
	if err != nil {
		return nil, err
	}
	recs, _, err := d.listRecords(ctx, api, z.ID, z.Name)
	if err != nil {
		return nil, err
	}
	return marksOf(recs), nil
}

// marksOf is one Mark per marked name, type and tenant of recs, sorted.
func marksOf(recs []record) []backends.Mark {
	seen := map[backends.Mark]bool{}
	var out []backends.Mark
	for _, r := range recs {
		m := backends.Mark{Name: r.name, Type: r.typ, Tenant: r.owner}
		if r.owner != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	backends.SortMarks(out)
	return out
}
