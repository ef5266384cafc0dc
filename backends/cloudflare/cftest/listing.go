package cftest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// listZones answers the zone lookup, list the record listing; both page as Cloudflare does.

func (s *Server) listZones(w http.ResponseWriter, r *http.Request) {
	// cloudflare-go sends the name filter in Unicode (its
	// normalizeZoneName turns xn-- labels into U-labels) and relies on
	// the API to compare names; the fake compares their A-label forms.
	name := aLabels(r.URL.Query().Get("name"))
	var out []map[string]any
	ids := make([]string, 0, len(s.zones))
	for id := range s.zones {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		z := s.zones[id]
		if name == "" || aLabels(z.name) == name {
			out = append(out, zoneObject(z))
		}
	}
	page(w, r, out, 20)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, z *zone) {
	q := r.URL.Query()
	type filter struct{ field, want string }
	var fs []filter
	for _, f := range []string{"name", "content"} {
		if v := q.Get(f + ".exact"); v != "" {
			fs = append(fs, filter{f, v})
		} else if v := q.Get(f); v != "" {
			// Plain name= and content= are the legacy spellings
			// cloudflare-go v0 sends; they match exactly.
			fs = append(fs, filter{f, v})
		}
	}
	if v := q.Get("name.endswith"); v != "" {
		fs = append(fs, filter{"name.endswith", v})
	}
	if v := q.Get("type"); v != "" {
		fs = append(fs, filter{"type", v})
	}
	if v := q.Get("proxied"); v != "" {
		fs = append(fs, filter{"proxied", v})
	}
	matchAny := q.Get("match") == "any"
	var out []*Record
	for _, rec := range sorted(z.records) {
		ok := !matchAny || len(fs) == 0
		for _, f := range fs {
			var got string
			switch f.field {
			case "name", "name.endswith":
				got = rec.Name
			case "content":
				got = rec.Content
			case "type":
				got = rec.Type
			case "proxied":
				got = strconv.FormatBool(rec.Proxied)
			}
			// Name filters are case-insensitive (documented); the fake
			// treats content and type alike. name.endswith is a suffix
			// of the name's text, not of its labels (documented as
			// "Suffix of the DNS record name").
			a, b := strings.ToLower(strings.TrimSuffix(got, ".")), strings.ToLower(strings.TrimSuffix(f.want, "."))
			m := a == b
			if f.field == "name.endswith" {
				m = strings.HasSuffix(a, b)
			}
			if matchAny {
				ok = ok || m
			} else {
				ok = ok && m
			}
		}
		if ok {
			out = append(out, rec)
		}
	}
	page(w, r, out, 100)
}

// page writes one page of items with result_info. Default page size as
// given; the documented maximum of per_page is 5,000,000.
func page[T any](w http.ResponseWriter, r *http.Request, items []T, def int) {
	q := r.URL.Query()
	pg, _ := strconv.Atoi(q.Get("page"))
	if pg < 1 {
		pg = 1
	}
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per < 1 {
		per = def
	}
	if per > 5_000_000 {
		per = 5_000_000
	}
	total := len(items)
	pages := (total + per - 1) / per
	lo := min((pg-1)*per, total)
	hi := min(lo+per, total)
	res := items[lo:hi]
	if res == nil {
		res = []T{}
	}
	body := envelope(res)
	body["result_info"] = map[string]int{"page": pg, "per_page": per, "count": hi - lo, "total_count": total, "total_pages": pages}
	writeJSON(w, http.StatusOK, body)
}

// zoneObject is a zone as the API lists it, with the fields Cloudflare's
// published schema requires of a zone (account, meta, name_servers,
// owner, original_*, created_on, modified_on, activated_on,
// development_mode among them).
func zoneObject(z *zone) map[string]any {
	const created = "2014-01-01T05:20:00.12345Z"
	return map[string]any{"id": z.id, "name": z.name, "status": "active", "paused": false, "type": "full",
		"account":          map[string]any{"id": "023e105f4ecef8ad9ca31a8372d0c353", "name": "Example Account"},
		"meta":             map[string]any{"cdn_only": false, "custom_certificate_quota": 0, "dns_only": false, "foundation_dns": false, "page_rule_quota": 3, "phishing_detected": false, "step": 2},
		"name_servers":     []string{"bob.ns.cloudflare.com", "lola.ns.cloudflare.com"},
		"owner":            map[string]any{"id": nil, "name": nil, "type": "user"},
		"original_dnshost": nil, "original_name_servers": nil, "original_registrar": nil,
		"created_on": created, "modified_on": created, "activated_on": created,
		"development_mode": 0,
	}
}
