package backends

import (
	"context"
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// ZoneSnapshot is a live DNS zone in the tenant language's terms, for
// site export (see model.ZoneSnapshot, its home).
type ZoneSnapshot = model.ZoneSnapshot

// MarkOwned adopts zone for zone.Tenant through driver d: it plans the
// zone and, when every planned change is an ungated adopt (marking
// records the tenant's, served data unchanged), applies them. It refuses,
// changing nothing, when the zone differs from zone.RRsets in anything
// but markers (it changed since the export), and returns how many
// RRsets it marked.
func MarkOwned(ctx context.Context, d Driver, zone *model.Zone, run *Run) (int, error) {
	sp, err := d.Plan(ctx, graph.ZoneStep(zone), run)
	if err != nil {
		return 0, err
	}
	for _, c := range sp.Changes {
		if c.Action != plan.ActionAdopt || len(c.Gates) > 0 {
			return 0, fmt.Errorf("zone %s changed since it was read (%s %s): nothing was marked; export it again", zone.Name, c.Action, c.Key)
		}
	}
	if len(sp.Changes) == 0 {
		return 0, nil
	}
	res, err := d.Apply(ctx, sp, run)
	if err != nil {
		return 0, fmt.Errorf("marking zone %s: %w", zone.Name, err)
	}
	if len(res.Problems) > 0 {
		// The marks are written (comments only); what failed is the
		// check of what the zone serves, which may not have run at all.
		return 0, fmt.Errorf("zone %s: the records are marked (comments only, nothing served changed), but checking what the server serves over DNS reports: %s", zone.Name, strings.Join(res.Problems, "; "))
	}
	return len(sp.Changes), nil
}

// ZoneExporter is a DNS backend that can adopt an existing zone: read it
// as a snapshot, then mark the snapshot's records as the tenant's
// without changing what the zone serves.
type ZoneExporter interface {
	Export(ctx context.Context, zone *model.Zone, run *Run) (*ZoneSnapshot, error)
	MarkOwned(ctx context.Context, zone *model.Zone, run *Run) (int, error)
}

// BoundExporter is an exporter with the run it reads in: compiler/export
// reads and marks a zone through it (as its export.Live) without
// importing backends. Its errors never carry a credential value, even
// one a backend quoted.
type BoundExporter struct {
	X   ZoneExporter
	Run *Run
}

// Export reads zone as X does, its error redacted.
func (b BoundExporter) Export(ctx context.Context, zone *model.Zone) (*ZoneSnapshot, error) {
	snap, err := b.X.Export(ctx, zone, b.Run)
	if err != nil {
		return nil, b.redact(zone, err)
	}
	return snap, nil
}

// MarkOwned marks zone as X does, its error redacted.
func (b BoundExporter) MarkOwned(ctx context.Context, zone *model.Zone) (int, error) {
	n, err := b.X.MarkOwned(ctx, zone, b.Run)
	if err != nil {
		return 0, b.redact(zone, err)
	}
	return n, nil
}

// redact scrubs the credential values of zone's provider and the run's
// secrets from err's text and keeps err as the cause, for errors.Is and
// errors.As.
func (b BoundExporter) redact(zone *model.Zone, err error) error {
	scope := &graph.Graph{Steps: []*graph.Step{{ID: graph.ZoneStepID(zone.Name), Phase: plan.PhaseDNS, Zone: zone}}}
	return redactedError{NewRedactor(scope, b.Run).Redact(err.Error()), err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// Zones lists every zone on p that its credential can see, for site
// export --all, its error redacted; X must also be a MarkReader.
func (b BoundExporter) Zones(ctx context.Context, p model.Provider) ([]ListedZone, error) {
	l, ok := b.X.(MarkReader)
	if !ok {
		return nil, fmt.Errorf("this build of site cannot list the zones of a %s provider", p.Kind())
	}
	zones, err := l.ListZones(ctx, p, b.Run)
	if err != nil {
		return nil, b.redact(&model.Zone{Provider: p}, err)
	}
	return zones, nil
}
