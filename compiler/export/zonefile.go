package export

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// RenderZoneFile writes z's RRsets as a BIND master file (RFC 1035 §5),
// the other form site export writes: $ORIGIN, then a line per record,
// "owner TTL IN TYPE data", owners relative to the zone ("@" the apex)
// in DNS order, types in the language's order, values in the canonical
// form Render writes them in. It refuses what Render refuses, with the
// same error, so the two forms of one export say the same records, and
// site import bind reads this file back to the spec Render writes.
// z.Apex (the SOA and apex NS as served) comes first, under a comment
// saying what site manages of them. z.Notes head the file as comments; a proxied record (which a zone
// file cannot say) ends in a comment saying so.
func RenderZoneFile(z Zone) ([]byte, error) {
	if !strings.HasSuffix(z.Zone, ".") {
		return nil, fmt.Errorf("export: zone %q is not a canonical name; pass it absolute with a trailing dot", z.Zone)
	}
	if _, err := collect(z); err != nil {
		return nil, err
	}
	type line struct {
		rs     model.RRset
		values []string
	}
	var lines []line
	for _, rs := range z.RRsets {
		if len(rs.Values) == 0 {
			continue
		}
		values, _ := canonicalValues(rs) // collect checked them
		slices.Sort(values)
		rs.Type = strings.ToUpper(rs.Type)
		lines = append(lines, line{rs, values})
	}
	slices.SortFunc(lines, func(a, b line) int {
		return cmp.Or(dnsOrder(a.rs.Name, b.rs.Name), cmp.Compare(slices.Index(typeOrder, a.rs.Type), slices.Index(typeOrder, b.rs.Type)))
	})
	var b strings.Builder
	for _, n := range z.Notes {
		for _, l := range strings.Split(n, "\n") {
			b.WriteString(strings.TrimRight("; "+l, " ") + "\n")
		}
	}
	fmt.Fprintf(&b, "$ORIGIN %s\n", z.Zone)
	writeApex(&b, z)
	for _, l := range lines {
		owner := dnsname.Relative(l.rs.Name, z.Zone)
		for _, v := range l.values {
			fmt.Fprintf(&b, "%s\t%d\tIN\t%s\t%s", owner, l.rs.TTL, l.rs.Type, v)
			if l.rs.Proxied {
				b.WriteString("\t; proxied through Cloudflare, which serves it with a TTL of its own")
			}
			b.WriteByte('\n')
		}
	}
	return []byte(b.String()), nil
}

// apexNote says, above the SOA and apex NS of an exported zone file,
// what site manages of them: both are written here as the server serves
// them, so the file is the whole zone, and neither is in the spec.
const apexNote = `; The SOA and apex NS as the server serves them; the tenant spec holds neither.
; site never writes the SOA's serial or primary name server (the server's own);
; a zone's soa: {mbox, refresh, retry, expire, minimum} sets the rest.
; The apex NS come with the zone on its provider; site touches them only
; when a spec names them ("@": NS: [...]). site import bind leaves both out.`

// writeApex writes z.Apex, SOA first, each RRset's values sorted.
func writeApex(b *strings.Builder, z Zone) {
	if len(z.Apex) == 0 {
		return
	}
	b.WriteString(apexNote + "\n")
	apex := slices.Clone(z.Apex)
	notSOA := func(r model.RRset) int {
		if strings.EqualFold(r.Type, "SOA") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(apex, func(a, c model.RRset) int { return cmp.Compare(notSOA(a), notSOA(c)) })
	for _, rs := range apex {
		values := slices.Sorted(slices.Values(rs.Values))
		for _, v := range values {
			fmt.Fprintf(b, "%s\t%d\tIN\t%s\t%s\n", dnsname.Relative(rs.Name, z.Zone), rs.TTL, strings.ToUpper(rs.Type), v)
		}
	}
}
