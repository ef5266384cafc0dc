package cftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cloudflare/cloudflare-go"
)

// client is the real cloudflare-go v0 client pointed at the fake, with
// its own retries off so that every answer is seen as sent.
func client(t *testing.T, s *Server, token string) *cloudflare.API {
	t.Helper()
	api, err := cloudflare.NewWithAPIToken(token, cloudflare.BaseURL(s.URL),
		cloudflare.UsingRetryPolicy(0, 0, 0), cloudflare.UsingRateLimit(1e6))
	if err != nil {
		t.Fatal(err)
	}
	return api
}

func TestZoneLookupAndAuth(t *testing.T) {
	s := New("tok")
	defer s.Close()
	id := s.AddZone("example.com")
	got, err := client(t, s, "tok").ZoneIDByName("example.com")
	if err != nil || got != id {
		t.Fatalf("ZoneIDByName = %q, %v; want %q", got, err, id)
	}
	_, err = client(t, s, "wrong").ZoneIDByName("example.com")
	var ae *cloudflare.AuthenticationError
	if !errors.As(err, &ae) || !ae.InternalErrorCodeIs(10000) {
		t.Errorf("got %v, want an AuthenticationError with code 10000", err)
	}
}

// TestReadOnlyToken: a token that may only read lists the zone and its
// records, and every write with it is refused 403 code 10000.
func TestReadOnlyToken(t *testing.T) {
	s := New("tok")
	defer s.Close()
	s.ReadOnlyToken("ro")
	id := s.AddZone("example.com")
	api := client(t, s, "ro")
	if got, err := api.ZoneIDByName("example.com"); err != nil || got != id {
		t.Fatalf("ZoneIDByName = %q, %v; want %q", got, err, id)
	}
	if _, _, err := api.ListDNSRecords(context.Background(), cloudflare.ZoneIdentifier(id), cloudflare.ListDNSRecordsParams{}); err != nil {
		t.Fatalf("ListDNSRecords: %v", err)
	}
	_, err := api.CreateDNSRecord(context.Background(), cloudflare.ZoneIdentifier(id), cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "A", Content: "192.0.2.1"})
	var ae *cloudflare.AuthenticationError
	if !errors.As(err, &ae) || !ae.InternalErrorCodeIs(10000) {
		t.Errorf("create with a read-only token: got %v, want an AuthenticationError with code 10000", err)
	}
	if n := len(s.Records(id)); n != 0 {
		t.Errorf("got %d records, want none written", n)
	}
}

func TestCreateConflicts(t *testing.T) {
	tests := []struct {
		name     string
		existing Record
		create   cloudflare.CreateDNSRecordParams
		code     int
	}{
		{"CNAME over A", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1"},
			cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "CNAME", Content: "b.example.com"}, 81053},
		{"A over CNAME", Record{Name: "a.example.com", Type: "CNAME", Content: "b.example.com"},
			cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "A", Content: "192.0.2.1"}, 81054},
		{"identical", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1"},
			cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "A", Content: "192.0.2.1"}, 81058},
		{"second value is fine", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1"},
			cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "A", Content: "192.0.2.2"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("tok")
			defer s.Close()
			zid := s.AddZone("example.com")
			if _, err := s.AddRecord(zid, tt.existing); err != nil {
				t.Fatal(err)
			}
			_, err := client(t, s, "tok").CreateDNSRecord(context.Background(), cloudflare.ZoneIdentifier(zid), tt.create)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			var re *cloudflare.RequestError
			if !errors.As(err, &re) || !re.InternalErrorCodeIs(tt.code) {
				t.Errorf("got %v, want a RequestError with code %d", err, tt.code)
			}
		})
	}
}

func TestListPagination(t *testing.T) {
	s := New("tok")
	defer s.Close()
	zid := s.AddZone("example.com")
	for i := range 25 {
		if _, err := s.AddRecord(zid, Record{Name: fmt.Sprintf("h%02d.example.com", i), Type: "A", Content: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	api := client(t, s, "tok")
	rc := cloudflare.ZoneIdentifier(zid)
	recs, info, err := api.ListDNSRecords(context.Background(), rc, cloudflare.ListDNSRecordsParams{ResultInfo: cloudflare.ResultInfo{Page: 3, PerPage: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || info.TotalPages != 3 || info.Total != 25 {
		t.Errorf("page 3: got %d records, %d pages, %d total; want 5, 3, 25", len(recs), info.TotalPages, info.Total)
	}
	// With Page and PerPage unset, v0 walks every page itself.
	all, _, err := api.ListDNSRecords(context.Background(), rc, cloudflare.ListDNSRecordsParams{})
	if err != nil || len(all) != 25 {
		t.Errorf("auto-paginated: got %d, %v; want 25", len(all), err)
	}
	byName, _, err := api.ListDNSRecords(context.Background(), rc, cloudflare.ListDNSRecordsParams{Name: "H07.example.com", Type: "A"})
	if err != nil || len(byName) != 1 {
		t.Errorf("name filter: got %d, %v; want 1", len(byName), err)
	}
	proxied := true
	none, _, err := api.ListDNSRecords(context.Background(), rc, cloudflare.ListDNSRecordsParams{Proxied: &proxied})
	if err != nil || len(none) != 0 {
		t.Errorf("proxied filter: got %d, %v; want 0", len(none), err)
	}
}

func TestBatchAllOrNothing(t *testing.T) {
	s := New("tok")
	defer s.Close()
	zid := s.AddZone("example.com")
	aID, _ := s.AddRecord(zid, Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1"})
	api := client(t, s, "tok")
	path := "/zones/" + zid + "/dns_records/batch"
	// Deletes run before posts, so an A can become a CNAME in one batch.
	ok := map[string]any{
		"deletes": []map[string]string{{"id": aID}},
		"posts":   []map[string]any{{"name": "a.example.com", "type": "CNAME", "content": "b.example.com", "ttl": 300}},
	}
	if _, err := api.Raw(context.Background(), http.MethodPost, path, ok, nil); err != nil {
		t.Fatalf("swap batch: %v", err)
	}
	// A failing post rolls back the delete before it.
	recs := s.Records(zid)
	bad := map[string]any{
		"deletes": []map[string]string{{"id": recs[0].ID}},
		"posts": []map[string]any{
			{"name": "c.example.com", "type": "A", "content": "192.0.2.3", "ttl": 300},
			{"name": "c.example.com", "type": "A", "content": "192.0.2.3", "ttl": 300},
		},
	}
	_, err := api.Raw(context.Background(), http.MethodPost, path, bad, nil)
	var re *cloudflare.RequestError
	if !errors.As(err, &re) || !re.InternalErrorCodeIs(81058) {
		t.Fatalf("got %v, want 81058", err)
	}
	after := s.Records(zid)
	if len(after) != 1 || after[0].Type != "CNAME" {
		t.Errorf("failed batch changed the zone: %+v", after)
	}
	if got := s.Count(EpBatch); got != 2 {
		t.Errorf("got %d batch calls, want 2", got)
	}
}

func TestRateLimit(t *testing.T) {
	s := New("tok")
	defer s.Close()
	s.AddZone("example.com")
	s.RateLimit(1, 7)
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/zones?name=example.com", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("got %d Retry-After %q, want 429 and 7", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if _, err := client(t, s, "tok").ZoneIDByName("example.com"); err != nil {
		t.Errorf("after the limit: %v", err)
	}
	if got := s.Count(EpRateLimited); got != 1 {
		t.Errorf("got %d rate-limited requests, want 1", got)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		paid bool
		ok   bool
	}{
		{"TTL automatic", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 1}, false, true},
		{"TTL too low", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 30}, false, false},
		{"TTL too high", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 86401}, false, false},
		{"TTL a day", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 86400}, false, true},
		// SRV data.target has format: hostname in the API's schema.
		{"SRV target .", Record{Name: "_x._tcp.example.com", Type: "SRV", TTL: 300,
			Data: map[string]any{"priority": 0, "weight": 0, "port": 0, "target": "."}}, false, false},
		{"SRV target hostname", Record{Name: "_x._tcp.example.com", Type: "SRV", TTL: 300,
			Data: map[string]any{"priority": 10, "weight": 5, "port": 5060, "target": "sip.example.com"}}, false, true},
		{"proxied TXT", Record{Name: "a.example.com", Type: "TXT", Content: `"x"`, TTL: 300, Proxied: true}, false, false},
		{"long comment on Free", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: strings.Repeat("c", 101)}, false, false},
		{"long comment on paid", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: strings.Repeat("c", 101)}, true, true},
		{"tags on Free", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 300, Tags: []string{"a:b"}}, false, false},
		{"tags on paid", Record{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 300, Tags: []string{"a:b"}}, true, true},
		{"outside the zone", Record{Name: "a.example.org", Type: "A", Content: "192.0.2.1", TTL: 300}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("tok")
			defer s.Close()
			s.SetPaidPlan(tt.paid)
			_, err := s.AddRecord(s.AddZone("example.com"), tt.rec)
			if (err == nil) != tt.ok {
				t.Errorf("got error %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestDataOnlyTypes: the types the API documents as set through data
// get their content made from it, and are refused without it.
func TestDataOnlyTypes(t *testing.T) {
	tests := []struct {
		typ     string
		data    map[string]any
		content string // "" when the create must fail with 1004
	}{
		{"SSHFP", map[string]any{"algorithm": 4, "type": 2, "fingerprint": "ab"}, "4 2 ab"},
		{"TLSA", map[string]any{"usage": 3, "selector": 1, "matching_type": 1, "certificate": "cd"}, "3 1 1 cd"},
		{"DS", map[string]any{"key_tag": 2371, "algorithm": 13, "digest_type": 2, "digest": "ef"}, "2371 13 2 ef"},
		{"NAPTR", map[string]any{"order": 100, "preference": 10, "flags": "S", "service": "SIP+D2U", "regex": "", "replacement": "_sip._udp.example.org"},
			`100 10 "S" "SIP+D2U" "" _sip._udp.example.org`},
		{"HTTPS", map[string]any{"priority": 1, "target": ".", "value": `alpn="h2"`}, `1 . alpn="h2"`},
		{"SVCB", map[string]any{"priority": 0, "target": "svc.example.org"}, "0 svc.example.org"},
		{"SSHFP", nil, ""},
		{"DS", map[string]any{"algorithm": 13, "digest_type": 2, "digest": "ef"}, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.typ, tt.data), func(t *testing.T) {
			s := New("tok")
			defer s.Close()
			id := s.AddZone("example.com")
			rec, err := client(t, s, "tok").CreateDNSRecord(context.Background(), cloudflare.ZoneIdentifier(id),
				cloudflare.CreateDNSRecordParams{Name: "x.example.com", Type: tt.typ, Data: tt.data, TTL: 300})
			if tt.content == "" {
				var re *cloudflare.RequestError
				if !errors.As(err, &re) || !re.InternalErrorCodeIs(1004) {
					t.Fatalf("got %v, want a 1004 validation error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Content != tt.content {
				t.Errorf("content: got %q, want %q", rec.Content, tt.content)
			}
		})
	}
}

// TestProxiedTTLIsAutomatic: a proxied record is stored with TTL 1
// (automatic) whatever TTL it was sent with; an unproxied one keeps the
// TTL sent.
func TestProxiedTTLIsAutomatic(t *testing.T) {
	s := New("tok")
	defer s.Close()
	zid := s.AddZone("example.com")
	for _, tt := range []struct {
		name    string
		proxied bool
	}{{"p.example.com", true}, {"d.example.com", false}} {
		if _, err := s.AddRecord(zid, Record{Name: tt.name, Type: "A", Content: "192.0.2.1", TTL: 300, Proxied: tt.proxied}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range s.Records(zid) {
		want := map[string]int{"p.example.com": 1, "d.example.com": 300}[r.Name]
		if r.TTL != want {
			t.Errorf("%s (proxied %t): got TTL %d, want %d", r.Name, r.Proxied, r.TTL, want)
		}
	}
}

// TestListNameEndsWith: name.endswith matches the end of the name's
// text, case-insensitively, as documented ("Suffix of the DNS record
// name"), not whole labels.
func TestListNameEndsWith(t *testing.T) {
	s := New("tok")
	defer s.Close()
	zid := s.AddZone("example.com")
	for _, n := range []string{"a.lab.example.com", "lab.example.com", "collab.example.com", "www.example.com"} {
		if _, err := s.AddRecord(zid, Record{Name: n, Type: "A", Content: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := client(t, s, "tok").Raw(context.Background(), http.MethodGet, "/zones/"+zid+"/dns_records?name.endswith=LAB.example.com", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []Record
	if err := json.Unmarshal(raw.Result, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		names = append(names, r.Name)
	}
	if want := "a.lab.example.com,collab.example.com,lab.example.com"; strings.Join(names, ",") != want {
		t.Errorf("got %v, want %s", names, want)
	}
}

// TestSetAlter: a write answers and stores the altered record; nil
// stops altering.
func TestSetAlter(t *testing.T) {
	s := New("tok")
	defer s.Close()
	zid := s.AddZone("example.com")
	s.SetAlter(func(r *Record) { r.TTL = 3600 })
	api := client(t, s, "tok")
	rec, err := api.CreateDNSRecord(context.Background(), cloudflare.ZoneIdentifier(zid), cloudflare.CreateDNSRecordParams{Name: "a.example.com", Type: "A", Content: "192.0.2.1", TTL: 300})
	if err != nil {
		t.Fatal(err)
	}
	s.SetAlter(nil)
	if _, err := s.AddRecord(zid, Record{Name: "b.example.com", Type: "A", Content: "192.0.2.2", TTL: 300}); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range s.Records(zid) {
		got[r.Name] = r.TTL
	}
	if rec.TTL != 3600 || got["a.example.com"] != 3600 || got["b.example.com"] != 300 {
		t.Errorf("answered TTL %d, stored %v; want 3600 for the altered write and 300 after SetAlter(nil)", rec.TTL, got)
	}
}
