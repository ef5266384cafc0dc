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
//	GET    /zones/{z}/dns_records               list: name, name.exact, name.endswith, type, content, content.exact, proxied, match, page, per_page
//	POST   /zones/{z}/dns_records               create
//	GET    /zones/{z}/dns_records/{id}          get
//	PATCH  /zones/{z}/dns_records/{id}          partial update
//	PUT    /zones/{z}/dns_records/{id}          overwrite
//	DELETE /zones/{z}/dns_records/{id}          delete
//	POST   /zones/{z}/dns_records/batch         deletes → patches → puts → posts, all or nothing
//	GET    /zones/{z}/dns_settings              the zone's DNS settings (only "soa")
//	PATCH  /zones/{z}/dns_settings              change the fields of "soa" it names
//	GET    /zones/{z}/dnssec                    DNSSEC status and DS (disabled unless SetDNSSEC)
//
// Every answer uses the v4 envelope {"success","errors","messages","result"}
// (lists add "result_info"). Errors: 403 code 10000 for a wrong token,
// and for a write with a token that may only read (ReadOnlyToken);
// 400 code 81053 creating a CNAME where an A, AAAA or CNAME exists; 81054
// creating an A or AAAA where a CNAME exists; 81058 for an identical
// record; 404 code 81044 for an unknown record id; 429 with Retry-After
// while the rate-limit switch is on. Requests are counted per endpoint.
package cftest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
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
	dnssec   DNSSEC // zero: disabled
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	*httptest.Server

	mu     sync.Mutex
	token  string
	zones  map[string]*zone // by id
	nextID int
	counts map[string]int

	// readOnly is a second token that may read but not write
	// (ReadOnlyToken), "" for none.
	readOnly string

	// BatchLimit is the most operations one batch may hold: 200 on the
	// Free plan (the default here), 3,500 on paid plans.
	batchLimit int
	// commentLimit is 100 characters on Free, 500 on paid plans.
	commentLimit int

	// alter, when set, changes every record a write stores, after the
	// write was accepted and answered as sent (SetAlter).
	alter func(*Record)

	rateLimited int // answer this many next requests with 429
	badGateway  int // answer this many next requests with an HTML 502
	retryAfter  int
	quota       *quota // see SetLimit
}

// New starts a fake that accepts only token. Close it when done.
func New(token string) *Server {
	s := newServer(token)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func newServer(token string) *Server {
	return &Server{token: token, zones: map[string]*zone{}, counts: map[string]int{},
		batchLimit: 200, commentLimit: 100}
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

// SetAlter makes the fake silently change every record a create, update
// or batch stores, after validating it and before answering: the answer
// and every later listing show the changed record. It stands for a
// provider that stores other than it was sent (a TTL clamped to a
// plan's minimum, a proxied flag it decided on its own), so tests can
// show that site reads its writes back. nil stops it.
func (s *Server) SetAlter(alter func(*Record)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.alter = alter
}

// RateLimit makes the next n requests answer 429 with a Retry-After of
// retryAfter seconds, as Cloudflare does once a client passes its quota.
func (s *Server) RateLimit(n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimited, s.retryAfter = n, retryAfter
}

// ReadOnlyToken makes the fake accept token for GET requests only, as
// Cloudflare does a token with Zone:Read and Zone:DNS:Read but without
// Zone:DNS:Edit: every write with it is answered 403 code 10000, the
// answer the real API gives a token without the permission (see serve).
func (s *Server) ReadOnlyToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readOnly = token
}

// BadGateway makes the next n requests answer 502 with an HTML page, as
// Cloudflare's edge does when the API behind it is down: no JSON
// envelope, so a client must not read it as the API's refusal.
func (s *Server) BadGateway(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.badGateway = n
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
