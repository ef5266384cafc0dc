package leftovers

import (
	"context"
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

// Unmarking is one site disown of a zone: the backend that reads and
// removes its markers, which of them (Sel), and what tells the
// operator which tenants still declare it.
type Unmarking struct {
	D    backends.Disowner
	Zone *model.Zone
	Sel  *Disown
	Run  *backends.Run
	// Unit is what D.Unmark counts: "record set" or "record".
	Unit string
	// Provider is --provider, the name site.cue gives the server; ""
	// when the server was named by flags, and Claims is then not asked.
	Provider string
	// Claims are the tenants' zones that still declare Zone on Provider.
	Claims func() ([]*model.Zone, error)
	// Rel makes a spec's positions relative, as messages show them.
	Rel func(model.Pos) model.Pos
}

// Unmark lists on w the markers u removes and, when acked, removes
// them. It returns how many it listed: when it is not 0 and acked is
// false nothing was changed, which the command says with its gate.
func (u Unmarking) Unmark(ctx context.Context, w io.Writer, acked bool) (listed int, err error) {
	zone := u.Zone.Name
	all, err := u.D.Marks(ctx, u.Zone, u.Run)
	if err != nil {
		return 0, err
	}
	marks, unmarked := u.Sel.Pick(all)
	if len(marks) == 0 {
		fmt.Fprintf(w, "zone %s: no site owner markers%s; nothing to do.\n", zone, NamesNote(unmarked))
		return 0, nil
	}
	WriteMarks(w, zone, marks, acked)
	if u.Provider != "" {
		// Only a provider site.cue names can be matched to the tenants'
		// zones, which name their provider so.
		claims, err := u.Claims()
		WarnClaims(w, zone, u.Provider, claims, err, u.Rel)
	}
	if len(unmarked) > 0 {
		fmt.Fprintf(w, "zone %s: no site owner markers%s\n", zone, NamesNote(unmarked))
	}
	if !acked {
		return len(marks), nil
	}
	n, err := u.D.Unmark(ctx, u.Zone, marks, u.Run)
	if err != nil {
		return len(marks), err
	}
	fmt.Fprintf(w, "removed site's owner marker from %s of zone %s; records unchanged.\n", words.Count(n, u.Unit), zone)
	return len(marks), nil
}
