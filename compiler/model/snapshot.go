package model

import (
	"fmt"
	"sort"
	"strings"
)

// ZoneSnapshot is a live DNS zone in the tenant language's terms, for
// site export. It lives here, not in backends, because both sides of an
// export need it: the backends that read it and compiler/export, which
// renders it and must not import backends.
type ZoneSnapshot struct {
	// RRsets are canonical and sorted by name then type.
	RRsets []*RRset
	// Skipped says, one line each, what was left out and why; site never
	// touches what it left out.
	Skipped []string
	// DNSSEC is true when the zone is signed (PowerDNS: it has an active
	// key), so its spec says dnssec: true.
	DNSSEC bool
	// Apex holds the zone's SOA and apex NS as the server serves them,
	// when the backend reads them: site writes them by its own rules, so
	// a spec never holds them, but a BIND master file of the zone does.
	Apex []*RRset
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
