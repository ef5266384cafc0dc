package backends

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// ZoneSnapshot is a live DNS zone in the tenant language's terms, for
// site export.
type ZoneSnapshot struct {
	// RRsets are canonical and sorted by name then type.
	RRsets []*model.RRset
	// Skipped says, one line each, what was left out and why; site never
	// touches what it left out.
	Skipped []string
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

// ZoneExporter is a DNS backend that can adopt an existing zone: read it
// as a snapshot, then mark the snapshot's records as the tenant's
// without changing what the zone serves.
type ZoneExporter interface {
	Export(ctx context.Context, zone *model.Zone, run *Run) (*ZoneSnapshot, error)
	MarkOwned(ctx context.Context, zone *model.Zone, run *Run) (int, error)
}
