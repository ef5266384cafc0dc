package powerdns

import (
	"context"
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// soaAfterCreate writes the fields of step's soa into the SOA of the
// zone b has just created: PowerDNS makes that SOA with the zone, so
// there was none to plan against, and without this the next run would
// still have an SOA change to make. The plan said so (see Plan). Only
// the SOA of the new plan is written; the verification then checks it
// with the rest.
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
		return fmt.Errorf("zone %s: created, but reading its SOA to set the spec's soa fields failed (%w); run site apply again", zone, err)
	}
	again := diff(step, observe(created), run)
	soa := &batch{client: b.client}
	for _, rs := range again.replaces {
		if string(*rs.Type) == "SOA" {
			soa.replaces = append(soa.replaces, rs)
		}
	}
	for _, e := range again.expect {
		if e.typ == "SOA" {
			b.expect = append(b.expect, e)
		}
	}
	if len(soa.replaces) == 0 {
		return nil
	}
	if err := d.write(ctx, soa, zone, run); err != nil {
		return fmt.Errorf("zone %s: created, but setting the spec's soa fields failed (%w); run site apply again", zone, err)
	}
	return nil
}
