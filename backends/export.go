package backends

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// ZoneSnapshot is a live DNS zone in the tenant language's terms, for
// site export.
type ZoneSnapshot struct {
	// RRsets are canonical and sorted by name then type.
	RRsets []*model.RRset
	// Skipped says, one line each, what was left out and why; site never
	// touches what it left out.
	Skipped []string
	// DNSSEC is true when the zone is signed (PowerDNS: it has an active
	// key), so its spec says dnssec: true.
	DNSSEC bool
}

// Sort orders the snapshot's RRsets by name then type and its Skipped
// lines alphabetically, so export output is the same on every run.
func (s *ZoneSnapshot) Sort() {
	sort.Slice(s.RRsets, func(i, j int) bool {
		a, b := s.RRsets[i], s.RRsets[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Type < b.Type
	})
	sort.Strings(s.Skipped)
}

// String lists the RRsets one per line, for tests and messages.
func (s *ZoneSnapshot) String() string {
	var b strings.Builder
	for _, r := range s.RRsets {
		fmt.Fprintf(&b, "%s %d %s %s\n", r.Name, r.TTL, r.Type, strings.Join(r.Values, " | "))
	}
	return b.String()
}

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
