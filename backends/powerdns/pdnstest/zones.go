package pdnstest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// RRset is one rrset as the API shows it, in a form tests can write
// literally. Records are contents in presentation form.
type RRset struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	TTL      uint32    `json:"ttl"`
	Records  []string  `json:"-"`
	Comments []Comment `json:"comments,omitempty"`
}

// Comment is an rrset comment; the owner marker is one.
type Comment struct {
	Account string `json:"account"`
	Content string `json:"content"`
}

type apiRecord struct {
	Content  string `json:"content"`
	Disabled bool   `json:"disabled"`
}

type apiRRset struct {
	Name       string      `json:"name"`
	Type       string      `json:"type"`
	TTL        uint32      `json:"ttl"`
	ChangeType string      `json:"changetype,omitempty"`
	Records    []apiRecord `json:"records"`
	Comments   []Comment   `json:"comments,omitempty"`
}

func toAPI(rs []RRset, changetype string) []apiRRset {
	out := make([]apiRRset, 0, len(rs))
	for _, r := range rs {
		a := apiRRset{Name: r.Name, Type: r.Type, TTL: r.TTL, ChangeType: changetype, Records: []apiRecord{}, Comments: r.Comments}
		for _, c := range r.Records {
			a.Records = append(a.Records, apiRecord{Content: c})
		}
		out = append(out, a)
	}
	return out
}

// CreateZone creates a Native zone (SOA-EDIT-API DEFAULT, so the serial
// moves on every change) holding rrsets, written as someone other than
// site would: no owner marker unless a test adds one.
func (s *Server) CreateZone(t testing.TB, zone string, rrsets ...RRset) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"name": zone, "kind": "Native", "soa_edit_api": "DEFAULT",
		"nameservers": []string{}, "rrsets": toAPI(rrsets, ""),
	})
	status, out, err := s.Do(context.Background(), "POST", "/zones", body)
	if err != nil || status != 201 {
		t.Fatalf("create zone %s: status %d, %v: %s", zone, status, err, out)
	}
	t.Cleanup(func() { s.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
}

// Replace writes rrsets into zone with one PATCH, as a foreign writer.
func (s *Server) Replace(t testing.TB, zone string, rrsets ...RRset) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"rrsets": toAPI(rrsets, "REPLACE")})
	status, out, err := s.Do(context.Background(), "PATCH", "/zones/"+zone, body)
	if err != nil || status != 204 {
		t.Fatalf("patch zone %s: status %d, %v: %s", zone, status, err, out)
	}
}

// Zone is what a GET of one zone shows.
type Zone struct {
	Serial uint32
	RRsets []RRset // sorted by name then type; records sorted
}

// Get reads zone. A missing zone fails the test.
func (s *Server) Get(t testing.TB, zone string) Zone {
	t.Helper()
	z, status, err := s.get(zone)
	if err != nil || status != 200 {
		t.Fatalf("get zone %s: status %d, %v", zone, status, err)
	}
	return z
}

// Exists reports whether zone exists on the server.
func (s *Server) Exists(t testing.TB, zone string) bool {
	t.Helper()
	_, status, err := s.get(zone)
	if err != nil {
		t.Fatal(err)
	}
	return status == 200
}

func (s *Server) get(zone string) (Zone, int, error) {
	status, out, err := s.Do(context.Background(), "GET", "/zones/"+zone, nil)
	if err != nil || status != 200 {
		return Zone{}, status, err
	}
	var raw struct {
		Serial uint32     `json:"serial"`
		RRsets []apiRRset `json:"rrsets"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return Zone{}, status, fmt.Errorf("decode zone %s: %w", zone, err)
	}
	z := Zone{Serial: raw.Serial}
	for _, a := range raw.RRsets {
		r := RRset{Name: a.Name, Type: a.Type, TTL: a.TTL, Comments: a.Comments}
		for _, rec := range a.Records {
			r.Records = append(r.Records, rec.Content)
		}
		sort.Strings(r.Records)
		z.RRsets = append(z.RRsets, r)
	}
	sort.Slice(z.RRsets, func(i, j int) bool {
		a, b := z.RRsets[i], z.RRsets[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Type < b.Type
	})
	return z, status, nil
}

// Find returns the rrset name/type of z, or nil.
func (z Zone) Find(name, typ string) *RRset {
	for i := range z.RRsets {
		if z.RRsets[i].Name == name && z.RRsets[i].Type == typ {
			return &z.RRsets[i]
		}
	}
	return nil
}

// Query asks the server's DNS port for name/type and returns the answer
// records of exactly that owner and type, as "ttl content" strings, sorted.
func (s *Server) Query(t testing.TB, name, typ string) []string {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, dns.StringToType[typ])
	c := &dns.Client{Net: "tcp"}
	in, _, err := c.Exchange(m, s.DNSAddr)
	if err != nil {
		t.Fatalf("query %s %s at %s: %v", name, typ, s.DNSAddr, err)
	}
	var out []string
	for _, rr := range in.Answer {
		h := rr.Header()
		if !strings.EqualFold(h.Name, name) || h.Rrtype != dns.StringToType[typ] {
			continue
		}
		data := strings.TrimPrefix(rr.String(), h.String())
		out = append(out, fmt.Sprintf("%d %s", h.Ttl, data))
	}
	sort.Strings(out)
	return out
}
