package cloudflare

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// listQueries records the query strings of the record listings a
// driver sends, so a test can see how the read-back was filtered.
type listQueries struct {
	mu      sync.Mutex
	queries []string
}

func (l *listQueries) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/dns_records") {
		l.mu.Lock()
		l.queries = append(l.queries, req.URL.Query().Encode())
		l.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// last is the query of the last listing: the read-back.
func (l *listQueries) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queries) == 0 {
		return ""
	}
	return l.queries[len(l.queries)-1]
}

func proxiedRR(name, typ string, ttl uint32, values ...string) *model.RRset {
	r := rr(name, typ, ttl, values...)
	r.Proxied = true
	return r
}

// TestReadBackAfterApply applies changes and checks that they are read
// back with one list request, filtered as narrowly as the API allows,
// found as written, and that the report says how each changed RRset is
// served (proxied or DNS only) and counts the list as a read.
func TestReadBackAfterApply(t *testing.T) {
	tests := []struct {
		name   string
		live   []cftest.Record
		want   []*model.RRset
		filter string // the read-back's name filter, "" for none
		note   string
	}{
		{
			name:   "one name is listed exactly",
			want:   []*model.RRset{proxiedRR("www."+zoneName, "CNAME", 1, zoneName)},
			filter: "name.exact=www.sjc.example.net",
			note:   "read back 1 changed RRset in 1 list request; proxied: www.sjc.example.net. CNAME",
		},
		{
			name:   "names under one subdomain are listed by that suffix",
			want:   []*model.RRset{rr("a.lab."+zoneName, "A", 300, "192.0.2.1"), rr("b.lab."+zoneName, "A", 300, "192.0.2.2")},
			filter: "name.endswith=lab.sjc.example.net",
			note:   "DNS only: a.lab.sjc.example.net. A, b.lab.sjc.example.net. A",
		},
		{
			name:   "names across the zone list the zone",
			want:   []*model.RRset{rr("keys."+zoneName, "A", 300, "203.0.113.10"), rr(zoneName, "MX", 300, "10 mx.example.org.")},
			filter: "",
			note:   "read back 2 changed RRsets in 1 list request",
		},
		{
			name: "an update, a delete and a create",
			live: []cftest.Record{
				{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.9", TTL: 300, Comment: Marker("sjc")},
				{Name: "old.sjc.example.net", Type: "A", Content: "203.0.113.8", TTL: 300, Comment: Marker("sjc")},
			},
			want:   []*model.RRset{rr("keys."+zoneName, "A", 600, "203.0.113.10"), rr("new."+zoneName, "TXT", 300, `"hello"`)},
			filter: "",
			note:   "read back 3 changed RRsets in 1 list request; DNS only: keys.sjc.example.net. A, new.sjc.example.net. TXT",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			lq := &listQueries{}
			f.drv.Transport = lq
			for _, r := range tt.live {
				f.add(t, r)
			}
			sp := f.plan(t, f.step(tt.want...))
			f.fake.ResetCounts()
			res := f.apply(t, sp)
			if len(res.Problems) != 0 {
				t.Errorf("problems: %q", res.Problems)
			}
			if got := f.fake.Count(cftest.EpList); got != 1 {
				t.Errorf("got %d list requests after the batch, want 1", got)
			}
			if res.Reads != 1 || res.Writes != f.fake.Count(cftest.EpBatch) || res.Requests != res.Reads+res.Writes {
				t.Errorf("got %d requests (%d reads, %d writes), want 1 read and %d writes", res.Requests, res.Reads, res.Writes, f.fake.Count(cftest.EpBatch))
			}
			q := lq.last()
			got := ""
			for _, p := range strings.Split(q, "&") {
				if strings.HasPrefix(p, "name") {
					got = p
				}
			}
			if got != tt.filter {
				t.Errorf("read-back filter %q (query %q), want %q", got, q, tt.filter)
			}
			if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q do not say %q", notes, tt.note)
			}
		})
	}
}

// TestReadBackCatchesAlteredRecords makes the fake store other than it
// was sent, silently, and checks that the read-back reports the record
// and what differs, as a problem (which fails the run).
func TestReadBackCatchesAlteredRecords(t *testing.T) {
	tests := []struct {
		name  string
		alter func(*cftest.Record)
		want  string
	}{
		{"TTL clamped", func(r *cftest.Record) { r.TTL = max(r.TTL, 3600) },
			"keys.sjc.example.net. A: Cloudflare changed what was written: 203.0.113.10 written with TTL 300, listed with TTL 3600"},
		{"proxied flipped", func(r *cftest.Record) { r.Proxied = true },
			"keys.sjc.example.net. A: Cloudflare changed what was written: 203.0.113.10 written DNS only, listed proxied"},
		{"comment dropped", func(r *cftest.Record) { r.Comment = "" },
			`203.0.113.10 written with the marker of tenant sjc, listed with comment ""`},
		{"content rewritten", func(r *cftest.Record) { r.Content = "203.0.113.99" },
			"keys.sjc.example.net. A: written 203.0.113.10, but Cloudflare lists 203.0.113.99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			sp := f.plan(t, f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10")))
			f.fake.SetAlter(tt.alter)
			res := f.apply(t, sp)
			if got := strings.Join(res.Problems, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("problems %q, want one saying %q", got, tt.want)
			}
		})
	}
}

// TestReadBackCatchesUndeletedRecord: a record that was to be deleted
// but is still listed is reported by its id. (The fake carries out the
// deletes it accepts, so the read-back is asked about a listed record.)
func TestReadBackCatchesUndeletedRecord(t *testing.T) {
	f := newFixture(t)
	id := f.add(t, cftest.Record{Name: "old.sjc.example.net", Type: "A", Content: "203.0.113.8", TTL: 300, Comment: Marker("sjc")})
	det, err := backends.DetailOf[*detail](f.plan(t, f.step()))
	if err != nil {
		t.Fatal(err)
	}
	gone := []expectation{{name: "old." + zoneName, typ: "A", gone: true, ids: []string{id}}}
	c, err := f.drv.verify(t.Context(), det, zoneName, gone)
	if err != nil {
		t.Fatal(err)
	}
	if want := "old.sjc.example.net. A: deleted, but Cloudflare still lists it (record " + id; len(c.problems) != 1 || !strings.Contains(c.problems[0], want) {
		t.Errorf("problems %q, want one saying %q", c.problems, want)
	}
	f.fake.SetAlter(nil)
	if _, err := f.drv.Apply(t.Context(), f.plan(t, f.step()), f.run); err != nil {
		t.Fatal(err)
	}
	if c, err := f.drv.verify(t.Context(), det, zoneName, gone); err != nil || len(c.problems) != 0 {
		t.Errorf("after the delete: problems %q, err %v", c.problems, err)
	}
}

func TestCommonSuffix(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"a.example.net."}, "a.example.net."},
		{[]string{"a.lab.example.net.", "b.lab.example.net."}, "lab.example.net."},
		{[]string{"lab.example.net.", "b.lab.example.net."}, "lab.example.net."},
		{[]string{"a.example.net.", "box.example.net."}, "example.net."},
		{[]string{"a.example.net.", "a.example.org."}, "."},
	}
	for _, tt := range tests {
		if got := commonSuffix(tt.names); got != tt.want {
			t.Errorf("commonSuffix(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
