package powerdns

import (
	"context"
	"fmt"
	"net/url"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/model"
)

// Marks lists the owner markers on zone: every rrset comment with
// account MarkerAccount whose text is a marker (backends.Disowner).
func (d *Driver) Marks(ctx context.Context, zone *model.Zone, run *backends.Run) ([]backends.Mark, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	live, _, err := d.readZone(ctx, zone, run)
	if err != nil {
		return nil, err
	}
	var out []backends.Mark
	for _, l := range live.Sets {
		for _, c := range comments(l) {
			if t, ok := siteMarker(c); ok {
				out = append(out, backends.Mark{Name: l.Name, Type: l.Type, Tenant: t})
			}
		}
	}
	backends.SortMarks(out)
	return out, nil
}

// Unmark reads zone again and, in one PATCH of comments-only REPLACEs,
// takes site's markers off the rrsets of marks that still carry one;
// other comments and the records stay (backends.Disowner).
func (d *Driver) Unmark(ctx context.Context, zone *model.Zone, marks []backends.Mark, run *backends.Run) (int, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	live, c, err := d.readZone(ctx, zone, run)
	if err != nil {
		return 0, err
	}
	asked := map[dnsplan.NameType]bool{}
	for _, m := range marks {
		asked[dnsplan.NameType{Name: m.Name, Type: m.Type}] = true
	}
	var sets []commentsOnly
	for key, l := range live.Sets {
		if !asked[key] {
			continue
		}
		keep := []pdns.Comment{} // never nil: "comments": [] clears them
		for _, cm := range comments(l) {
			if _, ok := siteMarker(cm); !ok {
				keep = append(keep, cm)
			}
		}
		if len(keep) < len(comments(l)) {
			sets = append(sets, commentsOnly{Name: l.Name, Type: l.Type, ChangeType: "REPLACE", Comments: keep})
		}
	}
	if len(sets) == 0 {
		return 0, nil
	}
	err = d.retry(ctx, func(ctx context.Context) error {
		return c.raw.do(ctx, "PATCH", "zones/"+url.PathEscape(zone.Name), map[string]any{"rrsets": sets}, nil)
	})
	if err != nil {
		return 0, fmt.Errorf("remove site's owner markers from zone %s at %s: %w", zone.Name, c.base, err)
	}
	return len(sets), nil
}

// commentsOnly is a REPLACE without a records key: PowerDNS changes only
// the rrset's comments, to exactly these (PATCH with changetype REPLACE
// and no records key; checked against PowerDNS 4.7).
type commentsOnly struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	ChangeType string         `json:"changetype"`
	Comments   []pdns.Comment `json:"comments"`
}

// siteMarker reports whether c is a site owner marker, and its tenant.
func siteMarker(c pdns.Comment) (string, bool) {
	if pdns.StringValue(c.Account) != MarkerAccount {
		return "", false
	}
	return backends.DNSMarkerOwner(pdns.StringValue(c.Content))
}
