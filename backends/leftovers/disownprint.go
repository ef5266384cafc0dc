package leftovers

import (
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/words"
)

// This file is what site disown prints: the markers it removes or
// would remove, the names that carry none, and the tenants that still
// declare the zone.

// NamesNote is " at NAME, ..." of names that carry no marker; "" when
// there are none.
func NamesNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " at " + strings.Join(names, ", ")
}

// WriteMarks lists the markers of zone a run removes (acked) or would
// remove.
func WriteMarks(w io.Writer, zone string, marks []backends.Mark, acked bool) {
	verb := "would remove"
	if acked {
		verb = "removing"
	}
	fmt.Fprintf(w, "zone %s: %s %s:\n", zone, verb, words.Count(len(marks), "owner marker"))
	for _, m := range marks {
		fmt.Fprintf(w, "  - %s %s (tenant %s)\n", m.Name, m.Type, m.Tenant)
	}
}

// WarnClaims tells, beside the markers disown lists, which tenants
// still declare the zone on the provider (claims, their positions
// passed through rel) and what their next apply does with the unmarked
// records, or that this could not be checked (err). It never refuses:
// an operator may mean to disown a zone for a while.
func WarnClaims(w io.Writer, zone, provider string, claims []*model.Zone, err error, rel func(model.Pos) model.Pos) {
	if err != nil {
		fmt.Fprintf(w, "note: could not check whether a tenant still declares zone %s on provider %s: %v\n", zone, provider, err)
		return
	}
	for _, z := range claims {
		p := rel(z.Pos)
		fmt.Fprintf(w, "warning: tenant %s still declares zone %s on provider %s, at %s:%d:%d: "+
			"its next apply takes the unmarked records back, at the names it declares "+
			"(adopting those that match its spec, overwriting the others with --ack GATE-DNS-OVERWRITE); "+
			"to leave them to no tenant, remove the zone from %s first\n",
			z.Tenant, zone, provider, p.File, p.Line, p.Col, p.File)
	}
}
