package cftest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
)

// The checks a record passes before it is stored, as Cloudflare makes them.

// recordInput is a create, patch or put body. Pointers tell "absent"
// from "zero" for PATCH. created_on, modified_on and settings, which
// cloudflare-go v0 sends with zero values, are ignored.
type recordInput struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Name     string         `json:"name"`
	Content  string         `json:"content"`
	Priority *uint16        `json:"priority"`
	Data     map[string]any `json:"data"`
	TTL      *int           `json:"ttl"`
	Proxied  *bool          `json:"proxied"`
	Comment  *string        `json:"comment"`
	// Tags: what Cloudflare does with "tags": null on PATCH is not
	// documented; the fake treats null like absent (tags unchanged).
	Tags []string `json:"tags"`
}

func decode(r *http.Request, v any) *apiError {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		// Code 9207 ("Request body is invalid.") as seen from the API;
		// not in a documented table.
		return &apiError{http.StatusBadRequest, 9207, "Request body is invalid."}
	}
	return nil
}

func notFound() *apiError {
	return &apiError{http.StatusNotFound, 81044, "Record does not exist."}
}

// validation answers with code 1004 ("DNS Validation Error"), the code
// Cloudflare uses for invalid record contents; which exact code each
// rule gets is not documented.
func validation(msg string) *apiError {
	return &apiError{http.StatusBadRequest, 1004, "DNS Validation Error: " + msg}
}

// normalise fills content from data for SRV and CAA, lower-cases the
// name and checks what the documentation says the API checks.
func (s *Server) normalise(z *zone, rec *Record) *apiError {
	rec.Type = strings.ToUpper(rec.Type)
	rec.Name = strings.ToLower(strings.TrimSuffix(rec.Name, "."))
	if rec.Name == "@" || rec.Name == "" {
		rec.Name = z.name
	}
	if rec.Name != z.name && !strings.HasSuffix(rec.Name, "."+z.name) {
		// Cloudflare appends the zone to a relative name; site always
		// sends full names, so the fake does not guess and refuses.
		return validation("name " + rec.Name + " is not in zone " + z.name)
	}
	if apiErr := normaliseContent(rec); apiErr != nil {
		return apiErr
	}
	return s.checkRecord(rec)
}

// normaliseContent writes rec's content as the API stores it for its
// type: host names without their final dot, SRV and CAA content from
// their data, the structured types checked.
func normaliseContent(rec *Record) *apiError {
	switch rec.Type {
	case "A", "AAAA", "TXT", "OPENPGPKEY":
	case "CNAME", "NS", "MX", "PTR":
		// The API returns host names in content without a trailing dot
		// (observed in its answers; the fake strips one if sent). The
		// root "." stays: a null MX (RFC 7505) is priority 0, content "."
		// on Cloudflare (as Terraform modules for it write it).
		rec.Content = strings.ToLower(trimDot(rec.Content))
	case "SRV":
		if rec.Data != nil {
			p, w, port := num(rec.Data["priority"]), num(rec.Data["weight"]), num(rec.Data["port"])
			t := trimDot(fmt.Sprint(rec.Data["target"]))
			if t == "." || t == "" || rec.Data["target"] == nil {
				// The schema's SRV data.target has format: hostname,
				// which the root "." is not.
				return validation(fmt.Sprintf("SRV data.target %q is not a hostname", t))
			}
			pr := uint16(p)
			rec.Priority = &pr
			rec.Content = fmt.Sprintf("%d %d %s", w, port, t)
			rec.Data = map[string]any{"priority": p, "weight": w, "port": port, "target": t}
		}
	case "CAA":
		if rec.Data != nil {
			f, tag, val := num(rec.Data["flags"]), fmt.Sprint(rec.Data["tag"]), fmt.Sprint(rec.Data["value"])
			rec.Content = fmt.Sprintf("%d %s %q", f, tag, val)
			rec.Data = map[string]any{"flags": f, "tag": tag, "value": val}
		}
	case "SSHFP", "TLSA", "SMIMEA", "DS", "NAPTR", "HTTPS", "SVCB", "CERT":
		if apiErr := structured(rec); apiErr != nil {
			return apiErr
		}
	case "URI", "LOC":
		if apiErr := dataContent(rec); apiErr != nil {
			return apiErr
		}
	default:
		return validation("type " + rec.Type + " is not supported by this fake")
	}
	return nil
}

// checkRecord checks what the API checks of every record: content,
// an MX priority, the TTL, proxying, the comment and tags for the plan.
func (s *Server) checkRecord(rec *Record) *apiError {
	if rec.Content == "" {
		return validation("content is required")
	}
	if rec.Type == "MX" && rec.Priority == nil {
		return validation("MX records need a priority")
	}
	if rec.TTL != 1 && (rec.TTL < 60 || rec.TTL > 86400) {
		return validation(fmt.Sprintf("TTL %d: use 1 (automatic) or 60 to 86400", rec.TTL))
	}
	if rec.Proxied && rec.Type != "A" && rec.Type != "AAAA" && rec.Type != "CNAME" {
		return validation("only A, AAAA and CNAME records can be proxied")
	}
	rec.Proxiable = rec.Type == "A" || rec.Type == "AAAA" || rec.Type == "CNAME"
	if rec.Proxied {
		// "Proxied records use Auto TTL": whatever ttl is sent, the API
		// stores and returns 1.
		rec.TTL = 1
	}
	if n := len([]rune(rec.Comment)); n > s.commentLimit {
		return validation(fmt.Sprintf("comment is %d characters, the plan allows %d", n, s.commentLimit))
	}
	if strings.ContainsAny(rec.Comment, "\r\n") {
		return validation("comment must not contain line breaks")
	}
	if rec.Tags == nil {
		rec.Tags = []string{}
	}
	// Tags are for paid plans only (documented); the code the API
	// answers on a Free zone is not, and the fake uses 1004.
	if len(rec.Tags) > 0 && s.batchLimit < 3500 {
		return validation("tags are not available on the Free plan")
	}
	return nil
}

// dataFields are the `data` fields of the types the API documents as
// set through data only ("See 'data' to set ... properties"), in the
// order the content the API returns lists them; true marks a number.
var dataFields = map[string][]struct {
	name string
	num  bool
}{
	"SSHFP": {{"algorithm", true}, {"type", true}, {"fingerprint", false}},
	"TLSA":  {{"usage", true}, {"selector", true}, {"matching_type", true}, {"certificate", false}},
	// SMIMEA has TLSA's fields (RFC 8162).
	"SMIMEA": {{"usage", true}, {"selector", true}, {"matching_type", true}, {"certificate", false}},
	// CERT: the API's CERTRecord data (RFC 4398's fields).
	"CERT": {{"type", true}, {"key_tag", true}, {"algorithm", true}, {"certificate", false}},
	// DS: the API's DSRecordData (cloudflare-go v4 dns/record.go):
	// key_tag, algorithm and digest_type numbers, digest a hex string.
	"DS":    {{"key_tag", true}, {"algorithm", true}, {"digest_type", true}, {"digest", false}},
	"NAPTR": {{"order", true}, {"preference", true}, {"flags", false}, {"service", false}, {"regex", false}, {"replacement", false}},
	"HTTPS": {{"priority", true}, {"target", false}, {"value", false}},
	"SVCB":  {{"priority", true}, {"target", false}, {"value", false}},
}

// structured checks a record of a data-only type and fills its content
// from data, as the API returns it: numbers in decimal, NAPTR's strings
// quoted, the SvcParams after priority and target. Which checks the
// API makes on each field is not documented; the fake wants every
// number present and keeps the strings as sent.
func structured(rec *Record) *apiError {
	if rec.Data == nil {
		return validation(rec.Type + " records are set through data, which is missing")
	}
	d := map[string]any{}
	var parts []string
	for _, f := range dataFields[rec.Type] {
		v, ok := rec.Data[f.name]
		switch {
		case f.num && !ok:
			return validation(fmt.Sprintf("%s data needs %s", rec.Type, f.name))
		case f.num:
			d[f.name] = num(v)
			parts = append(parts, strconv.Itoa(num(v)))
		default:
			str := ""
			if ok {
				str = fmt.Sprint(v)
			}
			d[f.name] = str
			if rec.Type == "NAPTR" && f.name != "replacement" {
				str = strconv.Quote(str)
			}
			if str != "" {
				parts = append(parts, str)
			}
		}
	}
	rec.Data, rec.Content = d, strings.Join(parts, " ")
	return nil
}

// aLabels is a zone name in lower case A-labels without the trailing
// dot; a name that is not a valid domain name is only lower-cased.
func aLabels(name string) string {
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return ""
	}
	c, err := dnsname.Canonical(name+".", "")
	if err != nil {
		return strings.ToLower(name)
	}
	return strings.TrimSuffix(c, ".")
}

// trimDot drops a trailing dot but keeps the root name ".". What the
// real API does with an SRV target "." is not documented; the fake
// treats it as it treats a null MX.
func trimDot(s string) string {
	if s == "." {
		return s
	}
	return strings.TrimSuffix(s, ".")
}

func num(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// conflict checks rec against the other records at its name: CNAME
// beside A/AAAA/CNAME and identical records. The documentation also
// says NS cannot share a name with other types; the code for that is
// not documented and the fake does not enforce it.
func conflict(records map[string]*Record, rec *Record) *apiError {
	for _, o := range records {
		if o.ID == rec.ID || o.Name != rec.Name {
			continue
		}
		switch {
		case rec.Type == "CNAME" && (o.Type == "A" || o.Type == "AAAA" || o.Type == "CNAME"):
			return &apiError{http.StatusBadRequest, 81053, msgExistsCNAME}
		case (rec.Type == "A" || rec.Type == "AAAA") && o.Type == "CNAME":
			return &apiError{http.StatusBadRequest, 81054, msgExistsCNAMEOnly}
		case o.Type == rec.Type && o.Content == rec.Content && prio(o) == prio(rec):
			return &apiError{http.StatusBadRequest, 81058, msgIdentical}
		}
	}
	return nil
}

func prio(r *Record) int {
	if r.Priority == nil {
		return -1
	}
	return int(*r.Priority)
}

// locFields are the API's LOC data fields (its LOCRecord), in the order
// of the presentation form its content says them in.
var locFields = []string{"lat_degrees", "lat_minutes", "lat_seconds", "lat_direction",
	"long_degrees", "long_minutes", "long_seconds", "long_direction",
	"altitude", "size", "precision_horz", "precision_vert"}

// dataContent checks the data of a URI or LOC record and writes its
// content. A URI's priority is the record's own field, as an MX's, and
// its data holds weight and target (the API's URIRecord).
func dataContent(rec *Record) *apiError {
	if rec.Type == "URI" {
		if rec.Priority == nil || rec.Data == nil || rec.Data["target"] == nil {
			return validation("URI records need a priority and data with weight and target")
		}
		w, t := num(rec.Data["weight"]), fmt.Sprint(rec.Data["target"])
		rec.Data = map[string]any{"weight": w, "target": t}
		rec.Content = fmt.Sprintf("%d %q", w, t)
		return nil
	}
	return locContent(rec)
}

// locContent checks a LOC record's data and writes its content, the
// numbers as sent and the four distances in metres.
func locContent(rec *Record) *apiError {
	if rec.Data == nil {
		return validation("LOC records are set through data, which is missing")
	}
	words := make([]string, len(locFields))
	for i, f := range locFields {
		v, ok := rec.Data[f]
		if !ok {
			return validation("LOC data needs " + f)
		}
		words[i] = fmt.Sprint(v)
		if i >= 8 {
			words[i] += "m"
		}
	}
	rec.Content = strings.Join(words, " ")
	return nil
}
