package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/words"
)

// After a zone's batches are sent, Apply lists the changed records back
// and compares them with what was written (incident 2: a write the API
// accepted is not yet what it serves; a proxied flag or TTL it changed on
// its own would otherwise go unseen until the next diff). It is one list
// request per zone: the API filters a listing by one name only (name.exact,
// name.endswith, ...; match=any ORs different fields, not two values of
// one), so a single changed name is asked for exactly, and several by
// the longest DNS suffix they share, the zone itself when that is all;
// more pages only past the page size.

// expectation is what one changed RRset should look like after apply.
type expectation struct {
	name, typ string
	// gone: the RRset's records with these ids were deleted, and must
	// not be listed any more (records of others at the name may stay).
	gone bool
	ids  []string
	// For a written RRset: its values (sorted, canonical), and the TTL,
	// proxying and owner every one of its records must have.
	values  []string
	ttl     uint32
	proxied bool
	tenant  string
}

// checked is what verification found for one zone.
type checked struct {
	problems []string
	note     string
}

// verify lists the changed names of zone once and compares them with
// expect. An error means the listing failed, and nothing was compared.
func (d *Driver) verify(ctx context.Context, det *detail, zone string, expect []expectation) (checked, error) {
	if len(expect) == 0 {
		return checked{}, nil
	}
	live, pages, err := d.listChanged(ctx, det, zone, expect)
	if err != nil {
		return checked{}, err
	}
	var c checked
	for _, e := range expect {
		if p := compareListed(e, live[key(e.name, e.typ)]); p != "" {
			c.problems = append(c.problems, p)
		}
	}
	c.note = proxiedNote(zone, expect, live, pages)
	return c, nil
}

// key files a listed record by name and type.
func key(name, typ string) string { return name + " " + typ }

// listChanged lists the records whose names expect covers, by name and
// type, and returns the number of pages it took.
func (d *Driver) listChanged(ctx context.Context, det *detail, zone string, expect []expectation) (map[string][]record, int, error) {
	q := url.Values{}
	names := make([]string, 0, len(expect))
	for _, e := range expect {
		names = append(names, e.name)
	}
	switch suffix := commonSuffix(names); {
	case suffix == names[0] && len(slices.Compact(slices.Sorted(slices.Values(names)))) == 1:
		q.Set("name.exact", strings.TrimSuffix(suffix, "."))
	case suffix != zone:
		// A string suffix: "x.example.net" matches "box.example.net"
		// too, which is why the answer is filtered by name below.
		q.Set("name.endswith", strings.TrimSuffix(suffix, "."))
	}
	q.Set("per_page", strconv.Itoa(d.perPage()))
	wanted := map[string]bool{}
	for _, e := range expect {
		wanted[key(e.name, e.typ)] = true
	}
	out := map[string][]record{}
	page := 1
	for ; ; page++ {
		q.Set("page", strconv.Itoa(page))
		raw, err := det.api.Raw(ctx, http.MethodGet, "/zones/"+det.zoneID+"/dns_records?"+q.Encode(), nil, nil)
		if err != nil {
			return nil, page, describe(fmt.Sprintf("listing the changed records of Cloudflare zone %s (page %d)", zone, page), needDNSEdit(zone), err)
		}
		var recs []cf.DNSRecord
		if err := json.Unmarshal(raw.Result, &recs); err != nil {
			return nil, page, fmt.Errorf("listing the changed records of Cloudflare zone %s: the answer is not a record list: %w", zone, err)
		}
		for _, r := range recs {
			rec, ok, err := fromCloudflare(r, zone)
			if err != nil || !ok || !wanted[key(rec.name, rec.typ)] {
				continue
			}
			out[key(rec.name, rec.typ)] = append(out[key(rec.name, rec.typ)], rec)
		}
		if raw.ResultInfo == nil || page >= raw.ResultInfo.TotalPages || len(recs) == 0 {
			return out, page, nil
		}
	}
}

// commonSuffix is the longest domain name every one of names is at or
// below (names are canonical, so the zone's apex at the least).
func commonSuffix(names []string) string {
	suffix := names[0]
	for _, n := range names[1:] {
		for !dnsname.IsSubdomain(n, suffix) {
			i := strings.IndexByte(suffix, '.')
			if i < 0 || i == len(suffix)-1 {
				return "."
			}
			suffix = suffix[i+1:]
		}
	}
	return suffix
}

// compareListed returns what differs between e and the records listed
// at its name and type, or "".
func compareListed(e expectation, got []record) string {
	label := e.name + " " + e.typ
	if e.gone {
		for _, r := range got {
			if slices.Contains(e.ids, r.id) {
				return fmt.Sprintf("%s: deleted, but Cloudflare still lists it (record %s, %s)", label, r.id, r.value)
			}
		}
		return ""
	}
	if len(got) == 0 {
		return fmt.Sprintf("%s: written, but Cloudflare lists no such records (want %s)", label, strings.Join(e.values, ", "))
	}
	values := make([]string, len(got))
	for i, r := range got {
		values[i] = r.value
	}
	slices.Sort(values)
	if !slices.Equal(values, e.values) {
		return fmt.Sprintf("%s: written %s, but Cloudflare lists %s", label, strings.Join(e.values, ", "), strings.Join(values, ", "))
	}
	var diffs []string
	for _, r := range got {
		if r.ttl != e.ttl {
			diffs = append(diffs, fmt.Sprintf("%s written with TTL %d, listed with TTL %d", r.value, e.ttl, r.ttl))
		}
		if r.proxied != e.proxied {
			diffs = append(diffs, fmt.Sprintf("%s written %s, listed %s", r.value, proxiedWord(e.proxied), proxiedWord(r.proxied)))
		}
		if r.owner != e.tenant {
			diffs = append(diffs, fmt.Sprintf("%s written with the marker of tenant %s, listed with comment %q", r.value, e.tenant, r.comment))
		}
	}
	if len(diffs) > 0 {
		return fmt.Sprintf("%s: Cloudflare changed what was written: %s", label, strings.Join(diffs, "; "))
	}
	return ""
}

func proxiedWord(p bool) string {
	if p {
		return "proxied"
	}
	return "DNS only"
}

// proxiedNote says how the written RRsets were listed back: proxied or
// DNS only, as Cloudflare says, not as the spec asked.
func proxiedNote(zone string, expect []expectation, live map[string][]record, pages int) string {
	var proxied, direct []string
	for _, e := range expect {
		recs := live[key(e.name, e.typ)]
		if e.gone || len(recs) == 0 {
			continue
		}
		if recs[0].proxied {
			proxied = append(proxied, key(e.name, e.typ))
		} else {
			direct = append(direct, key(e.name, e.typ))
		}
	}
	var parts []string
	if len(proxied) > 0 {
		parts = append(parts, "proxied: "+strings.Join(proxied, ", "))
	}
	if len(direct) > 0 {
		parts = append(parts, "DNS only: "+strings.Join(direct, ", "))
	}
	s := fmt.Sprintf("zone %s: read back %s in %s", zone, words.Count(len(expect), "changed RRset", "changed RRsets"), words.Count(pages, "list request", "list requests"))
	if len(parts) > 0 {
		s += "; " + strings.Join(parts, "; ")
	}
	return s
}
