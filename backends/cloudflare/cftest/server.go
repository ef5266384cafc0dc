// Package cftest is a FAKE of the Cloudflare v4 DNS API for tests, written
// from the public API documentation
// (https://developers.cloudflare.com/api/resources/dns/subresources/records/
// and https://developers.cloudflare.com/dns/manage-dns-records/how-to/batch-record-changes/),
// Cloudflare's published OpenAPI schema (github.com/cloudflare/api-schemas)
// and the cloudflare-go v0.119.0 sources. It is not Cloudflare: the real API
// cannot be reached from CI, so tests run against this instead. Where the
// real service's behaviour is not documented, a comment says what the
// fake does and that it is a choice, not a fact.
//
// Routes (all under the server's root, which stands for
// https://api.cloudflare.com/client/v4):
//
//	GET    /zones?name=                         zone lookup
//	GET    /zones/{z}/dns_records               list: name, name.exact, type, content, content.exact, proxied, match, page, per_page
//	POST   /zones/{z}/dns_records               create
//	GET    /zones/{z}/dns_records/{id}          get
//	PATCH  /zones/{z}/dns_records/{id}          partial update
//	PUT    /zones/{z}/dns_records/{id}          overwrite
//	DELETE /zones/{z}/dns_records/{id}          delete
//	POST   /zones/{z}/dns_records/batch         deletes → patches → puts → posts, all or nothing
//	GET    /zones/{z}/dns_settings              the zone's DNS settings (only "soa")
//	PATCH  /zones/{z}/dns_settings              change the fields of "soa" it names
//
// Every answer uses the v4 envelope {"success","errors","messages","result"}
// (lists add "result_info"). Errors: 403 code 10000 for a wrong token;
// 400 code 81053 creating a CNAME where an A, AAAA or CNAME exists; 81054
// creating an A or AAAA where a CNAME exists; 81058 for an identical
// record; 404 code 81044 for an unknown record id; 429 with Retry-After
// while the rate-limit switch is on. Requests are counted per endpoint.
package cftest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/compiler/dnsname"
)

// Endpoint names used by Count.
const (
	EpZones  = "zones"
	EpList   = "list"
	EpGet    = "get"
	EpCreate = "create"
	EpPatch  = "patch"
	EpPut    = "put"
	EpDelete = "delete"
	EpBatch  = "batch"
	// EpRateLimited counts requests answered 429 (they count under their
	// endpoint too).
	EpRateLimited = "429"
)

// Record is one DNS record as the API returns it.
type Record struct {
	ID         string         `json:"id"`
	ZoneID     string         `json:"zone_id"`
	ZoneName   string         `json:"zone_name"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Content    string         `json:"content"`
	Priority   *uint16        `json:"priority,omitempty"`
	Data       map[string]any `json:"data,omitempty"`
	TTL        int            `json:"ttl"`
	Proxied    bool           `json:"proxied"`
	Proxiable  bool           `json:"proxiable"`
	Comment    string         `json:"comment,omitempty"`
	Tags       []string       `json:"tags"`
	Meta       map[string]any `json:"meta"`
	CreatedOn  time.Time      `json:"created_on"`
	ModifiedOn time.Time      `json:"modified_on"`
}

type zone struct {
	id, name string
	records  map[string]*Record
	soa      SOA
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	*httptest.Server

	mu     sync.Mutex
	token  string
	zones  map[string]*zone // by id
	nextID int
	counts map[string]int

	// BatchLimit is the most operations one batch may hold: 200 on the
	// Free plan (the default here), 3,500 on paid plans.
	batchLimit int
	// commentLimit is 100 characters on Free, 500 on paid plans.
	commentLimit int

	rateLimited int // answer this many next requests with 429
	retryAfter  int
}

// New starts a fake that accepts only token. Close it when done.
func New(token string) *Server {
	s := &Server{token: token, zones: map[string]*zone{}, counts: map[string]int{},
		batchLimit: 200, commentLimit: 100}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetPaidPlan switches the limits to a paid plan's: batches of up to
// 3,500 operations and comments of up to 500 characters.
func (s *Server) SetPaidPlan(paid bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batchLimit, s.commentLimit = 200, 100
	if paid {
		s.batchLimit, s.commentLimit = 3500, 500
	}
}

// AddZone creates a zone and returns its id.
func (s *Server) AddZone(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := fmt.Sprintf("zone%04d", s.nextID)
	s.zones[id] = &zone{id: id, name: strings.ToLower(strings.TrimSuffix(name, ".")), records: map[string]*Record{}, soa: defaultSOA()}
	return id
}

// AddRecord creates a record out of band (as a user in the dashboard
// would), with the same validation as the API, and returns its id.
func (s *Server) AddRecord(zoneID string, r Record) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneID]
	if z == nil {
		return "", fmt.Errorf("no zone %s", zoneID)
	}
	in := recordInput{Type: r.Type, Name: r.Name, Content: r.Content, Priority: r.Priority, Data: r.Data,
		Comment: &r.Comment, Tags: r.Tags}
	if r.TTL != 0 {
		in.TTL = &r.TTL
	}
	if r.Proxied {
		in.Proxied = &r.Proxied
	}
	rec, apiErr := s.create(z, z.records, in)
	if apiErr != nil {
		return "", apiErr
	}
	return rec.ID, nil
}

// Records returns a copy of a zone's records, sorted by name, type and
// content.
func (s *Server) Records(zoneID string) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneID]
	if z == nil {
		return nil
	}
	out := make([]Record, 0, len(z.records))
	for _, r := range sorted(z.records) {
		out = append(out, *r)
	}
	return out
}

// Count returns how many requests an endpoint (Ep*) has received.
func (s *Server) Count(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[endpoint]
}

// Counts returns a copy of every endpoint's count.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// ResetCounts sets every count to zero.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = map[string]int{}
}

// RateLimit makes the next n requests answer 429 with a Retry-After of
// retryAfter seconds, as Cloudflare does once a client passes its quota.
func (s *Server) RateLimit(n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimited, s.retryAfter = n, retryAfter
}

// apiError is one error answer: HTTP status and the envelope's errors.
type apiError struct {
	status int
	code   int
	msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("%s (%d)", e.msg, e.code) }

// Messages as Cloudflare sends them, quoted in public issue reports
// (81054: jeessy2/ddns-go#1557, 81058: jeessy2/ddns-go#1378); Cloudflare
// publishes no table of them.
const (
	msgExistsCNAME     = "An A, AAAA, or CNAME record with that host already exists. For more details, refer to <https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/>."
	msgExistsCNAMEOnly = "A CNAME record with that host already exists. For more details, refer to <https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/>."
	msgIdentical       = "An identical record already exists."
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	ep := endpoint(r.Method, parts)
	s.counts[ep]++
	if s.rateLimited > 0 {
		s.rateLimited--
		s.counts[EpRateLimited]++
		w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter))
		w.Header().Set("Ratelimit", `"default";r=0;t=`+strconv.Itoa(s.retryAfter))
		w.Header().Set("Ratelimit-Policy", `"burst";q=100;w=60`)
		// The REST API's 429 body is not documented (the limits page,
		// https://developers.cloudflare.com/fundamentals/api/reference/limits/,
		// names only the status and headers); the fake uses the code and
		// text wrangler has been seen to get (cloudflare/workers-sdk#10025).
		writeError(w, &apiError{http.StatusTooManyRequests, 971, "Please wait and consider throttling your request speed"})
		return
	}
	// Cloudflare answers a token without permission with 403 code 10000.
	// A malformed Authorization header gets 400 6003/6111 from the real
	// API; the fake treats every wrong or missing token alike.
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		writeError(w, &apiError{http.StatusForbidden, 10000, "Authentication error"})
		return
	}
	switch {
	case ep == EpZones:
		s.listZones(w, r)
		return
	case ep == "":
		writeError(w, &apiError{http.StatusNotFound, 7003, "Could not route to " + r.URL.Path + ", perhaps your object identifier is invalid?"})
		return
	}
	z := s.zones[parts[1]]
	if z == nil {
		// Code 7003 is what Cloudflare answers for an unknown zone id in
		// a path (seen in public issues; not in a documented table).
		writeError(w, &apiError{http.StatusNotFound, 7003, "Could not route to " + r.URL.Path + ", perhaps your object identifier is invalid?"})
		return
	}
	switch ep {
	case EpSettingsGet, EpSettingsPatch:
		s.settings(w, r, z, ep == EpSettingsPatch)
	case EpList:
		s.list(w, r, z)
	case EpBatch:
		s.batch(w, r, z)
	case EpCreate:
		var in recordInput
		if err := decode(r, &in); err != nil {
			writeError(w, err)
			return
		}
		rec, err := s.create(z, z.records, in)
		reply(w, rec, err)
	case EpGet:
		rec := z.records[parts[3]]
		if rec == nil {
			writeError(w, notFound())
			return
		}
		reply(w, rec, nil)
	case EpPatch, EpPut:
		var in recordInput
		if err := decode(r, &in); err != nil {
			writeError(w, err)
			return
		}
		in.ID = parts[3]
		rec, err := s.update(z, z.records, in, ep == EpPut)
		reply(w, rec, err)
	case EpDelete:
		if err := s.remove(z.records, parts[3]); err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, envelope(map[string]string{"id": parts[3]}))
	}
}

// endpoint names the route of a request, "" when there is none.
func endpoint(method string, p []string) string {
	switch {
	case len(p) == 1 && p[0] == "zones" && method == http.MethodGet:
		return EpZones
	case len(p) == 3 && p[0] == "zones" && p[2] == "dns_records":
		switch method {
		case http.MethodGet:
			return EpList
		case http.MethodPost:
			return EpCreate
		}
	case len(p) == 3 && p[0] == "zones" && p[2] == "dns_settings":
		switch method {
		case http.MethodGet:
			return EpSettingsGet
		case http.MethodPatch:
			return EpSettingsPatch
		}
	case len(p) == 4 && p[0] == "zones" && p[2] == "dns_records" && p[3] == "batch" && method == http.MethodPost:
		return EpBatch
	case len(p) == 4 && p[0] == "zones" && p[2] == "dns_records":
		switch method {
		case http.MethodGet:
			return EpGet
		case http.MethodPatch:
			return EpPatch
		case http.MethodPut:
			return EpPut
		case http.MethodDelete:
			return EpDelete
		}
	}
	return ""
}

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
			out = append(out, map[string]any{"id": z.id, "name": z.name, "status": "active", "paused": false, "type": "full"})
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
			case "name":
				got = rec.Name
			case "content":
				got = rec.Content
			case "type":
				got = rec.Type
			case "proxied":
				got = strconv.FormatBool(rec.Proxied)
			}
			// Name filters are case-insensitive (documented); the fake
			// treats content and type alike.
			m := strings.EqualFold(strings.TrimSuffix(got, "."), strings.TrimSuffix(f.want, "."))
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
	case "SSHFP", "TLSA", "SMIMEA", "DS", "NAPTR", "HTTPS", "SVCB":
		if apiErr := structured(rec); apiErr != nil {
			return apiErr
		}
	default:
		return validation("type " + rec.Type + " is not supported by this fake")
	}
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
	// SMIMEA has TLSA's fields (RFC 8162); site does not manage it, and
	// the fake serves it so that tests see a type site leaves alone.
	"SMIMEA": {{"usage", true}, {"selector", true}, {"matching_type", true}, {"certificate", false}},
	"DS":     {{"key_tag", true}, {"algorithm", true}, {"digest_type", true}, {"digest", false}},
	"NAPTR":  {{"order", true}, {"preference", true}, {"flags", false}, {"service", false}, {"regex", false}, {"replacement", false}},
	"HTTPS":  {{"priority", true}, {"target", false}, {"value", false}},
	"SVCB":   {{"priority", true}, {"target", false}, {"value", false}},
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

func (s *Server) newID() string {
	s.nextID++
	return fmt.Sprintf("%032x", s.nextID)
}

func (s *Server) create(z *zone, records map[string]*Record, in recordInput) (*Record, *apiError) {
	now := time.Now().UTC()
	rec := &Record{ID: s.newID(), ZoneID: z.id, ZoneName: z.name, Type: in.Type, Name: in.Name,
		Content: in.Content, Priority: in.Priority, Data: in.Data, TTL: 1, Tags: in.Tags,
		Meta: map[string]any{}, CreatedOn: now, ModifiedOn: now}
	if in.TTL != nil {
		rec.TTL = *in.TTL
	}
	if in.Proxied != nil {
		rec.Proxied = *in.Proxied
	}
	if in.Comment != nil {
		rec.Comment = *in.Comment
	}
	if err := s.normalise(z, rec); err != nil {
		return nil, err
	}
	if err := conflict(records, rec); err != nil {
		return nil, err
	}
	records[rec.ID] = rec
	return rec, nil
}

// update applies a PATCH (unspecified fields unchanged) or a PUT
// (unspecified fields back to their defaults).
func (s *Server) update(z *zone, records map[string]*Record, in recordInput, put bool) (*Record, *apiError) {
	old := records[in.ID]
	if old == nil {
		return nil, notFound()
	}
	rec := *old
	if put {
		rec = Record{ID: old.ID, ZoneID: z.id, ZoneName: z.name, TTL: 1, Tags: []string{},
			Meta: map[string]any{}, CreatedOn: old.CreatedOn}
		rec.Type, rec.Name, rec.Content = in.Type, in.Name, in.Content
	} else {
		if in.Type != "" {
			rec.Type = in.Type
		}
		if in.Name != "" {
			rec.Name = in.Name
		}
		if in.Content != "" {
			rec.Content = in.Content
		}
	}
	if in.Priority != nil || put {
		rec.Priority = in.Priority
	}
	if in.Data != nil || put {
		rec.Data = in.Data
	}
	if in.TTL != nil {
		rec.TTL = *in.TTL
	}
	if in.Proxied != nil {
		rec.Proxied = *in.Proxied
	}
	if in.Comment != nil {
		rec.Comment = *in.Comment
	}
	if in.Tags != nil {
		rec.Tags = in.Tags
	}
	rec.ModifiedOn = time.Now().UTC()
	if err := s.normalise(z, &rec); err != nil {
		return nil, err
	}
	if err := conflict(records, &rec); err != nil {
		return nil, err
	}
	records[rec.ID] = &rec
	return &rec, nil
}

func (s *Server) remove(records map[string]*Record, id string) *apiError {
	if records[id] == nil {
		return notFound()
	}
	delete(records, id)
	return nil
}

// batch runs deletes, patches, puts and posts in that order on a copy of
// the zone and keeps the copy only when every operation succeeded: the
// documented all-or-nothing semantics. The first error is returned.
// Whether the real API checks the size limit before anything else, and
// which code it uses for an oversized batch, is not documented; the fake
// checks first and answers 400 code 1004.
func (s *Server) batch(w http.ResponseWriter, r *http.Request, z *zone) {
	var body struct {
		Deletes []struct {
			ID string `json:"id"`
		} `json:"deletes"`
		Patches []recordInput `json:"patches"`
		Puts    []recordInput `json:"puts"`
		Posts   []recordInput `json:"posts"`
	}
	if err := decode(r, &body); err != nil {
		writeError(w, err)
		return
	}
	if n := len(body.Deletes) + len(body.Patches) + len(body.Puts) + len(body.Posts); n > s.batchLimit {
		writeError(w, validation(fmt.Sprintf("a batch may hold at most %d operations on this plan, got %d", s.batchLimit, n)))
		return
	}
	work := make(map[string]*Record, len(z.records))
	for id, rec := range z.records {
		work[id] = rec
	}
	res := map[string][]*Record{"deletes": {}, "patches": {}, "puts": {}, "posts": {}}
	for _, d := range body.Deletes {
		old := work[d.ID]
		if err := s.remove(work, d.ID); err != nil {
			writeError(w, err)
			return
		}
		res["deletes"] = append(res["deletes"], old)
	}
	for _, in := range body.Patches {
		rec, err := s.update(z, work, in, false)
		if err != nil {
			writeError(w, err)
			return
		}
		res["patches"] = append(res["patches"], rec)
	}
	for _, in := range body.Puts {
		rec, err := s.update(z, work, in, true)
		if err != nil {
			writeError(w, err)
			return
		}
		res["puts"] = append(res["puts"], rec)
	}
	for _, in := range body.Posts {
		rec, err := s.create(z, work, in)
		if err != nil {
			writeError(w, err)
			return
		}
		res["posts"] = append(res["posts"], rec)
	}
	z.records = work
	writeJSON(w, http.StatusOK, envelope(res))
}

func sorted(m map[string]*Record) []*Record {
	out := make([]*Record, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	// The API's default order is not documented; the fake sorts by type,
	// name, content and id so that pages are stable.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Content != b.Content {
			return a.Content < b.Content
		}
		return a.ID < b.ID
	})
	return out
}

func envelope(result any) map[string]any {
	return map[string]any{"success": true, "errors": []any{}, "messages": []any{}, "result": result}
}

func reply(w http.ResponseWriter, rec *Record, err *apiError) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, envelope(rec))
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, map[string]any{"success": false,
		"errors":   []map[string]any{{"code": e.code, "message": e.msg}},
		"messages": []any{}, "result": nil})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
