package powerdns

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestIncident2_MultiErrorBodyIsClassified checks both 422 shapes. The
// single-error shape comes from the real PowerDNS 4.7.3; the multi-error
// shape exists only since PowerDNS 5.1 (4.7.3 never emits it), so a small
// httptest server replays that exact body.
func TestIncident2_MultiErrorBodyIsClassified(t *testing.T) {
	t.Run("4.7.3 single error from the real server", func(t *testing.T) {
		srv := pdnstest.Shared(t)
		const zone = "race.test."
		srv.CreateZone(t, zone)
		step := zoneStep(srv, "office1", zone, rr("v4.race.test.", "CNAME", 300, "race.test."))
		d, run := testDriver(), newRun(srv)
		sp := mustPlan(t, d, step, run)
		// The other controller writes an A between plan and apply.
		srv.Replace(t, zone, pdnstest.RRset{Name: "v4.race.test.", Type: "A", TTL: 60, Records: []string{"192.0.2.4"}})
		srv.ResetRequests(zone)
		_, err := d.Apply(context.Background(), sp, run)
		var ae *APIError
		if !errors.As(err, &ae) || ae.Class != backends.ClassConflict || ae.Status != 422 {
			t.Fatalf("got %v, want a 422 conflict", err)
		}
		if want := "RRset v4.race.test. IN CNAME: Conflicts with pre-existing RRset"; len(ae.Messages) != 1 || ae.Messages[0] != want {
			t.Errorf("got messages %q, want [%q]", ae.Messages, want)
		}
		if got := srv.Requests(zone).PATCH; got != 1 {
			t.Errorf("got %d PATCHes, want 1: a conflict is never retried", got)
		}
	})

	tests := []struct {
		name  string
		body  string
		class backends.Class
		msgs  []string
	}{
		{
			name:  "5.1 multi-error with a conflict inside",
			body:  `{"error": "Multiple errors found in RRset", "errors": ["RRset v4.multi.test. IN CNAME: Conflicts with pre-existing RRset", "Record v6.multi.test./AAAA 'x': Parsing record content (try 'pdnsutil check-zone'): while parsing IPv6 address"]}`,
			class: backends.ClassConflict,
			msgs:  []string{"RRset v4.multi.test. IN CNAME: Conflicts with pre-existing RRset", "Record v6.multi.test./AAAA 'x': Parsing record content (try 'pdnsutil check-zone'): while parsing IPv6 address"},
		},
		{
			name:  "5.1 multi-error, all invalid",
			body:  `{"error": "Multiple errors found in RRset", "errors": ["Record a.multi.test./A 'x': Parsing record content", "Record b.multi.test./A 'y': Parsing record content"]}`,
			class: backends.ClassInvalid,
			msgs:  []string{"Record a.multi.test./A 'x': Parsing record content", "Record b.multi.test./A 'y': Parsing record content"},
		},
		{
			name:  "single error, conflict",
			body:  `{"error": "RRset v4.multi.test. IN CNAME: Conflicts with pre-existing RRset"}`,
			class: backends.ClassConflict,
			msgs:  []string{"RRset v4.multi.test. IN CNAME: Conflicts with pre-existing RRset"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var patches atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.Method {
				case "GET":
					// A zone holds its SOA, else it is no observation.
					w.Write([]byte(`{"name": "multi.test.", "kind": "Native", "serial": 1, "rrsets": [{"name": "multi.test.", "type": "SOA", "ttl": 3600, "records": [{"content": "ns.multi.test. h.multi.test. 1 10800 3600 604800 3600", "disabled": false}]}]}`))
				case "PATCH":
					patches.Add(1)
					w.WriteHeader(422)
					w.Write([]byte(tc.body))
				default:
					w.WriteHeader(405)
				}
			}))
			defer ts.Close()
			z := &model.Zone{Tenant: "office1", Name: "multi.test.", RRsets: []*model.RRset{rr("v4.multi.test.", "CNAME", 300, "multi.test.")},
				Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: ts.URL, Server: "localhost", APIKey: model.Credential{Env: keyEnv}}}}
			step := &graph.Step{ID: "dns/multi.test.", Phase: plan.PhaseDNS, Tenant: "office1", Zone: z}
			run := newRun(&pdnstest.Server{APIKey: "k"})
			d := testDriver()
			sp := mustPlan(t, d, step, run)
			_, err := d.Apply(context.Background(), sp, run)
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *APIError", err)
			}
			if ae.Class != tc.class {
				t.Errorf("got class %s, want %s", ae.Class, tc.class)
			}
			if !equalStrings(ae.Messages, tc.msgs) {
				t.Errorf("got messages %q, want %q", ae.Messages, tc.msgs)
			}
			if got := patches.Load(); got != 1 {
				t.Errorf("got %d PATCHes, want 1: a 422 is never retried", got)
			}
			for _, m := range tc.msgs {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not carry %q", err, m)
				}
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		status int
		msgs   []string
		want   backends.Class
	}{
		{0, nil, backends.ClassTransient},
		{500, []string{"Internal Server Error"}, backends.ClassTransient},
		{503, nil, backends.ClassTransient},
		{429, nil, backends.ClassTransient},
		{401, []string{"Unauthorized"}, backends.ClassAuth},
		{403, nil, backends.ClassAuth},
		{409, []string{"Conflict"}, backends.ClassConflict},
		{404, []string{"Not Found"}, backends.ClassConflict},
		{400, []string{"Bad Request"}, backends.ClassInvalid},
		{422, []string{"Key 'ttl' not an Integer or not present"}, backends.ClassInvalid},
		{422, []string{"RRset a.example. IN A: Conflicts with pre-existing RRset"}, backends.ClassConflict},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status)+" "+strings.Join(tc.msgs, ","), func(t *testing.T) {
			if got := classify(tc.status, tc.msgs); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{`{"error": "one"}`, []string{"one"}},
		{`{"error": "Multiple errors found in RRset", "errors": ["a", "b"]}`, []string{"a", "b"}},
		{"Unauthorized", []string{"Unauthorized"}},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.body, func(t *testing.T) {
			if got := parseErrorBody([]byte(tc.body)); !equalStrings(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTransientWriteIsRetriedThenSucceeds(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "retry.test."
	srv.CreateZone(t, zone)
	var failed atomic.Bool
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		// The first PATCH meets an overloaded server; the rest pass.
		return 503, `{"error": "Service Unavailable"}`, r.Method == "PATCH" && failed.CompareAndSwap(false, true)
	})
	d, run := testDriver(), newRun(srv)
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, rr("www.retry.test.", "A", 300, "192.0.2.1")), run)
	srv.ResetRequests(zone)
	mustApply(t, d, sp, run)
	if got := srv.Requests(zone).PATCH; got != 2 {
		t.Errorf("got %d PATCHes, want 2: one refused with 503, one retried", got)
	}
	if got := srv.Query(t, "www.retry.test.", "A"); !equalStrings(got, []string{"300 192.0.2.1"}) {
		t.Errorf("got %q, want the record served", got)
	}
}
