package powerdns

import (
	"context"
	"fmt"
	"sort"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

var _ backends.MarkReader = (*Driver)(nil)

// ListZones lists the zones on p's server with one GET, sorted by name
// (backends.MarkReader).
func (d *Driver) ListZones(ctx context.Context, p model.Provider, run *backends.Run) ([]backends.ListedZone, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	c, err := d.providerClient(p, run)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.Name, err)
	}
	var zones []pdns.Zone
	err = d.retry(ctx, func(ctx context.Context) error {
		var err error
		zones, err = c.api.Zones.List(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the zones of provider %s at %s%s: %w", p.Name, c.base, keySource(err, p.PowerDNS.APIKey), err)
	}
	out := make([]backends.ListedZone, 0, len(zones))
	for _, z := range zones {
		// PowerDNS names zones in lower case with the trailing dot, the
		// canonical form every spec's zone is compared in.
		name := strings.ToLower(pdns.StringValue(z.Name))
		out = append(out, backends.ListedZone{Name: name, ID: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ZoneMarks reads zone z on p with one GET and returns its owner
// markers (backends.MarkReader).
func (d *Driver) ZoneMarks(ctx context.Context, p model.Provider, z backends.ListedZone, run *backends.Run) ([]backends.Mark, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	return d.Marks(ctx, &model.Zone{Name: z.Name, Provider: p}, run)
}
