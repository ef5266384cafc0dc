package powerdns

import (
	"context"
	"fmt"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
)

// soaAfterCreate writes the fields of step's soa into the SOA of the
// zone b has just created: PowerDNS makes that SOA with the zone, so
// there was none to plan against, and without this the next run would
// still have an SOA change to make. The plan said so (see Plan). Only
// the SOA is planned here, against the one the server made: the rest of
// the zone was written as planned. The verification then checks it with
// the rest.
func (d *Driver) soaAfterCreate(ctx context.Context, b *batch, step *graph.Step, run *backends.Run) error {
	zone := step.Zone.Name
	created := b.created
	var err error
	if created == nil {
		// Parts were PATCHed after the POST: its answer is not the zone.
		err = d.retry(ctx, func(ctx context.Context) error {
			var err error
			created, err = b.client.api.Zones.Get(ctx, zone)
			return err
		})
	}
	if err != nil {
		return hint.Wrap(fmt.Errorf("zone %s: created, but reading its SOA to set the spec's soa fields failed (%w)", zone, err), hint.Hint{Kind: hint.RunAgain})
	}
	made := &pdns.Zone{Name: created.Name}
	for _, rs := range created.RRsets {
		if derefType(rs.Type) == pdns.RRTypeSOA {
			made.RRsets = append(made.RRsets, rs)
		}
	}
	only, z := *step, *step.Zone
	z.RRsets, z.Ignore, z.SignedChildren = nil, nil, nil
	only.Zone = &z
	soa := diff(&only, observe(made), run)
	soa.client = b.client
	b.expect = append(b.expect, soa.expect...)
	if len(soa.replaces) == 0 {
		return nil
	}
	if err := d.write(ctx, soa, zone, run); err != nil {
		return hint.Wrap(fmt.Errorf("zone %s: created, but setting the spec's soa fields failed (%w)", zone, err), hint.Hint{Kind: hint.RunAgain})
	}
	return nil
}
