package leftovers

// This file is site disown's logic, the way back for what leftovers
// reports: which owner markers of a zone a run removes, from the zone
// and the --name values given, and which of those names carry none.
// Reading and removing the markers is the DNS backends'
// (backends.Disowner); cmd/site asks, prints and picks the exit code.

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/dnsname"
)

// Disown is one disown's zone and names, canonical.
type Disown struct {
	Zone   string
	only   map[string]bool // the names; empty: every marker
	looked []string        // the names, in the order given
}

// SelectDisown canonicalises zone and names (--name, relative to the zone
// unless absolute) before anything is read.
func SelectDisown(zone string, names []string) (*Disown, error) {
	z, err := dnsname.Canonical(strings.TrimSuffix(zone, ".")+".", "")
	if err != nil {
		return nil, fmt.Errorf("zone: %w", err)
	}
	s := &Disown{Zone: z, only: map[string]bool{}}
	for _, n := range names {
		c, err := DisownName(n, z)
		if err != nil {
			return nil, err
		}
		if !s.only[c] {
			s.looked = append(s.looked, c)
		}
		s.only[c] = true
	}
	return s, nil
}

// Pick keeps the markers of all at the selected names (all of them
// without names) and lists the names given that carry none, as they
// were looked up.
func (s *Disown) Pick(all []backends.Mark) (marks []backends.Mark, unmarked []string) {
	marked := map[string]bool{}
	for _, m := range all {
		if len(s.only) == 0 || s.only[m.Name] {
			marks = append(marks, m)
			marked[m.Name] = true
		}
	}
	for _, n := range s.looked {
		if !marked[n] {
			unmarked = append(unmarked, n)
		}
	}
	return marks, unmarked
}

// DisownName canonicalises one --name in zone. A name without a trailing dot
// is read relative to the zone, so one that already ends in the zone's
// name ("www.example.org" in example.org) would be looked up as
// www.example.org.example.org., which no one means: it is refused with
// the two ways to write it, before anything is read.
func DisownName(n, zone string) (string, error) {
	c, err := dnsname.Canonical(n, zone)
	if err != nil {
		return "", fmt.Errorf("--name %s: %w", n, err)
	}
	// Compared in canonical form, so case and Unicode or xn--
	// spellings do not matter; vet holds record names to the same rule.
	abs, ok := dnsname.MeantAbsolute(n, zone)
	if !ok {
		return c, nil
	}
	rel := dnsname.Relative(abs, zone)
	what := "(relative to the zone)"
	if rel == "@" {
		what = "(the zone apex)"
	}
	return "", fmt.Errorf("--name %s is read relative to zone %s, as %s; write --name %s %s or --name %s (absolute, with the trailing dot); nothing was read or changed",
		n, zone, c, rel, what, abs)
}
