package cloudflare

import (
	"context"
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// Marks lists the owner markers on zone: the records whose comment is a
// site marker, one Mark per name, type and tenant (backends.Disowner).
func (d *Driver) Marks(ctx context.Context, zone *model.Zone, run *backends.Run) ([]backends.Mark, error) {
	obs, _, err := d.observeZone(ctx, zone, run)
	if err != nil {
		return nil, err
	}
	return marksOf(obs.records), nil
}

// Unmark observes zone again and empties the comment of every marked
// record at the names and types of marks, through the batch endpoint
// (comment-only patches: the records stay as they are). It returns how
// many records it unmarked (backends.Disowner).
func (d *Driver) Unmark(ctx context.Context, zone *model.Zone, marks []backends.Mark, run *backends.Run) (int, error) {
	obs, det, err := d.observeZone(ctx, zone, run)
	if err != nil {
		return 0, err
	}
	asked := map[[2]string]bool{}
	for _, m := range marks {
		asked[[2]string{m.Name, m.Type}] = true
	}
	empty := ""
	var ops []op
	for _, r := range obs.records {
		if r.owner != "" && asked[[2]string{r.name, r.typ}] {
			ops = append(ops, op{kind: opPatch, id: r.id, body: body{ID: r.id, Comment: &empty}})
		}
	}
	if _, err := d.send(ctx, det, zone.Name, ops, run); err != nil {
		return 0, fmt.Errorf("remove site's owner markers from zone %s: %w", zone.Name, err)
	}
	return len(ops), nil
}

// observeZone reads zone for disown and returns what send needs to write
// to it.
func (d *Driver) observeZone(ctx context.Context, zone *model.Zone, run *backends.Run) (*observation, *detail, error) {
	chunk, err := d.chunk(run)
	if err != nil {
		return nil, nil, err
	}
	api, requests, err := d.client(graph.ZoneStep(zone), run)
	if err != nil {
		return nil, nil, err
	}
	obs, err := d.observe(ctx, api, zone)
	if err != nil {
		return nil, nil, err
	}
	return obs, &detail{api: api, zoneID: obs.zoneID, chunk: chunk, requests: requests}, nil
}
