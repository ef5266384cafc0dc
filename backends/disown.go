package backends

import (
	"context"
	"sort"

	"github.com/site-tools/site/compiler/model"
)

// Mark is one owner marker site wrote beside a live record set: the
// RRset (PowerDNS) or records (Cloudflare) at Name and Type, and the
// tenant the marker names.
type Mark struct {
	Name, Type, Tenant string
}

// SortMarks orders marks by name, type and tenant, so site disown lists
// them the same way on every run.
func SortMarks(m []Mark) {
	sort.Slice(m, func(i, j int) bool {
		a, b := m[i], m[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Tenant < b.Tenant
	})
}

// Disowner is a DNS backend that can take site's owner markers off a
// zone (site disown), the inverse of ZoneExporter.MarkOwned: the records
// and every other comment stay as they are, and from then on they are
// foreign to every tenant.
type Disowner interface {
	// Marks lists the owner markers on zone (its Name and Provider).
	Marks(ctx context.Context, zone *model.Zone, run *Run) ([]Mark, error)
	// Unmark reads zone again and removes the markers of marks that are
	// still there, in as few writes as the API allows; it returns how
	// many it unmarked: record sets (PowerDNS) or records (Cloudflare,
	// which keeps a comment per record).
	Unmark(ctx context.Context, zone *model.Zone, marks []Mark, run *Run) (int, error)
}
