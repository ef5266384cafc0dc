package cloudflare

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// These tests probe the safety promises (a scope that was not fully
// observed plans no deletes; data without our owner marker is never
// changed or deleted without a gate)
// at the edges the happy-path tests leave out: records of another site
// tenant, RRsets that gain or lose values, listings that fail half-way.

func TestRecordsOfAnotherTenantOrNoneNeedOverwriteGate(t *testing.T) {
	const keys = "keys." + zoneName
	other := Marker("office1")
	tests := []zoneCase{
		{"identical record of another tenant is not taken silently",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300, Comment: other}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"adopt keys.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"a value added to our RRset is an update",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300, Comment: Marker("sjc")}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10", "203.0.113.11")},
			[]string{"update keys.sjc.example.net./A"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc", "keys.sjc.example.net A 203.0.113.11 managed by site tenant=sjc"}},
		{"a value removed from our RRset is an update",
			[]cftest.Record{
				{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300, Comment: Marker("sjc")},
				{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.11", TTL: 300, Comment: Marker("sjc")},
			},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"update keys.sjc.example.net./A"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"a value added beside an identical foreign record is gated",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10", "203.0.113.11")},
			[]string{"update keys.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc", "keys.sjc.example.net A 203.0.113.11 managed by site tenant=sjc"}},
		{"a value added beside another tenant's identical record is gated",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300, Comment: other}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10", "203.0.113.11")},
			[]string{"update keys.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc", "keys.sjc.example.net A 203.0.113.11 managed by site tenant=sjc"}},
		{"another tenant's record no longer wanted by us stays",
			[]cftest.Record{
				{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300, Comment: Marker("sjc")},
				{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.12", TTL: 300, Comment: other},
				{Name: "gone.sjc.example.net", Type: "TXT", Content: `"x"`, TTL: 300, Comment: other},
				{Name: "gone.sjc.example.net", Type: "TXT", Content: `"y"`, TTL: 300, Comment: Marker("sjc")},
			},
			nil,
			// All of ours in the zone goes: GATE-DNS-DELETE-MANY.
			[]string{"delete gone.sjc.example.net./TXT GATE-DNS-DELETE-MANY", "delete keys.sjc.example.net./A GATE-DNS-DELETE-MANY"},
			[]string{`gone.sjc.example.net TXT "x" ` + other, "keys.sjc.example.net A 203.0.113.12 " + other}},
		{"a tenant whose name extends ours is another tenant",
			[]cftest.Record{{Name: "old.sjc.example.net", Type: "A", Content: "192.0.2.8", TTL: 300, Comment: Marker("sjc2")}},
			nil, nil,
			[]string{"old.sjc.example.net A 192.0.2.8 " + Marker("sjc2")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			step, sp := f.planCase(t, tt)
			for _, c := range sp.Changes {
				if slices.Contains(c.Gates, plan.GateDNSOverwrite) && c.Impact != plan.ImpactOverwrite {
					t.Errorf("%s is gated but its impact is %s, want %s", c.Key, c.Impact, plan.ImpactOverwrite)
				}
			}
			f.run.Acked[plan.GateDNSOverwrite] = true
			f.apply(t, sp)
			f.checkAfter(t, step, tt.after)
		})
	}
}

// TestDeleteManyThresholdEdges pins where GATE-DNS-DELETE-MANY starts:
// more than 30 % of this tenant's RRsets, in a zone holding at least 10
// of them, and whatever the size all of them or more than half; other
// tenants' and unmarked records count for nothing.
func TestDeleteManyThresholdEdges(t *testing.T) {
	tests := []struct {
		name           string
		ours, foreign  int
		others         int // records of tenant office1
		keep           int
		deletes        int
		gated          bool
		percent, least int
	}{
		{"9 RRsets, 4 deleted: under the minimum of 10 and not more than half", 9, 0, 0, 5, 4, false, 30, 10},
		{"9 RRsets, all deleted: all of ours is gated under the minimum too", 9, 0, 0, 0, 9, true, 30, 10},
		{"10 RRsets, 3 deleted: exactly 30 % is allowed", 10, 0, 0, 7, 3, false, 30, 10},
		{"10 RRsets, 4 deleted: 40 % is gated", 10, 0, 0, 6, 4, true, 30, 10},
		{"9 ours beside 20 foreign, 4 ours deleted: foreign does not count", 9, 20, 0, 5, 4, false, 30, 10},
		{"9 ours beside 20 of another tenant, 4 deleted: theirs does not count", 9, 0, 20, 5, 4, false, 30, 10},
		{"9 ours beside 20 foreign, 5 ours deleted: more than half is gated", 9, 20, 0, 4, 5, true, 30, 10},
		{"threshold 0: one delete of 10 is gated", 10, 0, 0, 9, 1, true, 0, 10},
		{"threshold 100: every delete is allowed", 10, 0, 0, 0, 10, false, 100, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.run.DeleteManyPercent, f.run.DeleteManyMin = tt.percent, tt.least
			var want []*model.RRset
			add := func(prefix string, n int, comment string) {
				for i := range n {
					f.add(t, cftest.Record{Name: fmt.Sprintf("%s%d.sjc.example.net", prefix, i), Type: "A", Content: "192.0.2.1", TTL: 300, Comment: comment})
				}
			}
			add("ours", tt.ours, Marker("sjc"))
			add("hand", tt.foreign, "")
			add("theirs", tt.others, Marker("office1"))
			for i := range tt.keep {
				want = append(want, rr(fmt.Sprintf("ours%d.%s", i, zoneName), "A", 300, "192.0.2.1"))
			}
			sp := f.plan(t, f.step(want...))
			n, gated := 0, 0
			for _, c := range sp.Changes {
				if c.Action != plan.ActionDelete {
					t.Errorf("unexpected change %s %s", c.Action, c.Key)
					continue
				}
				n++
				for _, g := range c.Gates {
					if g == plan.GateDNSDeleteMany {
						gated++
					}
				}
			}
			if n != tt.deletes {
				t.Errorf("got %d deletes, want %d", n, tt.deletes)
			}
			if want := map[bool]int{true: n, false: 0}[tt.gated]; gated != want {
				t.Errorf("got %d of %d deletes gated, want %d", gated, n, want)
			}
		})
	}
}

// TestEveryTypeConvergesAfterApply applies RRsets of every type,
// TXT at its awkward edges included, and expects the second plan to be
// empty: an apply that does not read back as written would rewrite the
// zone on every run.
func TestEveryTypeConvergesAfterApply(t *testing.T) {
	long := strings.Repeat("k", 300)
	tests := []struct {
		name string
		rrs  []*model.RRset
	}{
		{"A and AAAA", []*model.RRset{rr("a."+zoneName, "A", 300, "192.0.2.1", "192.0.2.2"), rr("a."+zoneName, "AAAA", 300, "2001:db8::1")}},
		{"CNAME", []*model.RRset{rr("c."+zoneName, "CNAME", 300, "target.example.org.")}},
		{"TXT with quotes and semicolons", []*model.RRset{rr("t."+zoneName, "TXT", 300, `"v=DKIM1; k=rsa; p=\"quoted\""`, `"a;b;c"`)}},
		{"TXT longer than 255", []*model.RRset{rr("l."+zoneName, "TXT", 300, `"`+long[:255]+`" "`+long[255:]+`"`)}},
		{"TXT with unicode", []*model.RRset{rr("u."+zoneName, "TXT", 300, `"caf\195\169 \226\152\131"`)}},
		{"MX", []*model.RRset{rr(zoneName, "MX", 300, "10 mx1.example.org.", "20 mx2.example.org.")}},
		{"TXT with backslashes and an empty string", []*model.RRset{rr("b."+zoneName, "TXT", 300, `"back\\slash"`, `""`)}},
		{"CAA with parameters", []*model.RRset{rr(zoneName, "CAA", 300, `0 issue "letsencrypt.org; validationmethods=dns-01"`, `0 issuewild ";"`)}},
		{"IDN CNAME target", []*model.RRset{rr("i."+zoneName, "CNAME", 300, "xn--bcher-kva.example.")}},
		{"TTL 1 (automatic) and 86400", []*model.RRset{rr("auto."+zoneName, "A", 1, "192.0.2.1"), rr("day."+zoneName, "A", 86400, "192.0.2.2")}},
		{"null MX", []*model.RRset{rr("nomail."+zoneName, "MX", 300, "0 .")}},
		{"SRV", []*model.RRset{rr("_sip._tcp."+zoneName, "SRV", 300, "10 5 5060 sip.example.org.")}},
		{"CAA", []*model.RRset{rr(zoneName, "CAA", 300, `0 issue "letsencrypt.org"`, `128 iodef "mailto:sec@example.org"`)}},
		{"NS delegation", []*model.RRset{rr("sub."+zoneName, "NS", 3600, "ns1.example.org.", "ns2.example.org.")}},
		{"PTR", []*model.RRset{rr("1.2."+zoneName, "PTR", 300, "host.example.org.", "h2.example.org.")}},
		{"ALIAS at the apex, beside MX", []*model.RRset{rr(zoneName, "ALIAS", 300, "lb.example.org."), rr(zoneName, "MX", 300, "10 mx.example.org.")}},
		{"SSHFP", []*model.RRset{rr("ssh."+zoneName, "SSHFP", 300, "4 2 "+strings.Repeat("ab", 32), "1 1 "+strings.Repeat("0f", 20))}},
		{"TLSA", []*model.RRset{rr("_443._tcp."+zoneName, "TLSA", 300, "3 1 1 "+strings.Repeat("cd", 32))}},
		{"HTTPS and SVCB", []*model.RRset{rr(zoneName, "HTTPS", 300, "1 . alpn=h2,h3 port=443", `2 alt.example.org. ech="AEX+DQBBAAAg"`), rr("_dns."+zoneName, "SVCB", 300, "0 svc.example.org.")}},
		{"NAPTR", []*model.RRset{rr("sip."+zoneName, "NAPTR", 300, `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`, `100 20 "u" "E2U+sip" "!^.*$!sip:a@example.org!" .`)}},
		{"DS", []*model.RRset{rr("child."+zoneName, "NS", 300, "ns1.example.org."), rr("child."+zoneName, "DS", 300, "2371 13 2 "+strings.Repeat("ef", 32))}},
		{"OPENPGPKEY", []*model.RRset{rr("pgp."+zoneName, "OPENPGPKEY", 300, "mQINBFq5ZXhhbXBsZQ==")}},
		// issue 28: the types Cloudflare serves of those it added, and a
		// TTL per type at one name.
		{"URI", []*model.RRset{rr("_http._tcp."+zoneName, "URI", 300, `10 1 "https://www.example.org/a b"`, `20 0 "ftp://files.example.org/"`)}},
		{"CERT", []*model.RRset{rr("cert."+zoneName, "CERT", 300, "1 12 8 MIIBIjAN", "253 0 0 aHR0cDovL2V4YW1wbGU=")}},
		{"SMIMEA", []*model.RRset{rr("x._smimecert."+zoneName, "SMIMEA", 300, "3 1 1 "+strings.Repeat("cd", 32))}},
		{"LOC", []*model.RRset{rr("loc."+zoneName, "LOC", 300, "52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m",
			"42 21 43.528 S 71 5 6.284 W 24.00m 1.00m 200.00m 10.00m")}},
		{"a TTL per type at one name", []*model.RRset{rr("ttls."+zoneName, "A", 60, "192.0.2.1"), rr("ttls."+zoneName, "MX", 3600, "10 mx.example.org."),
			rr("ttls."+zoneName, "TXT", 86400, `"x"`)}},
		{"wildcard and underscore names", []*model.RRset{rr("*.apps."+zoneName, "A", 300, "192.0.2.9"), rr("_dmarc."+zoneName, "TXT", 300, `"v=DMARC1; p=none"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			step := f.step(tt.rrs...)
			sp := f.plan(t, step)
			if len(sp.Changes) == 0 {
				t.Fatalf("nothing planned for an empty zone")
			}
			f.apply(t, sp)
			if again := f.plan(t, step); len(again.Changes) != 0 {
				t.Errorf("not converged after apply: %v\nzone:\n%s", summary(again.Changes), strings.Join(zoneLines(f), "\n"))
			}
		})
	}
}

// TestRerunAfterFailedBatchConverges: a batch after the first fails
// (the service errs, the connection drops) and leaves the zone half
// changed; planning again and applying must converge, whatever the mix
// of deletes, updates and creates was.
func TestRerunAfterFailedBatchConverges(t *testing.T) {
	tests := []struct {
		name   string
		failAt int // the batch request that fails, 1-based
		status int
	}{
		{"second batch answers 500", 2, http.StatusInternalServerError},
		{"third batch answers 503", 3, http.StatusServiceUnavailable},
		{"second batch gets no answer", 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.drv.ChunkSize = 2
			for _, r := range []cftest.Record{
				{Name: "gone1.sjc.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")},
				{Name: "gone2.sjc.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")},
				{Name: "www.sjc.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")},
				{Name: "mx.sjc.example.net", Type: "A", Content: "192.0.2.7", TTL: 300, Comment: Marker("sjc")},
				{Name: "hand.sjc.example.net", Type: "A", Content: "192.0.2.9", TTL: 300},
			} {
				f.add(t, r)
			}
			step := f.step(
				rr("www."+zoneName, "CNAME", 300, zoneName), // our A gives way
				rr("mx."+zoneName, "A", 600, "192.0.2.7", "192.0.2.8"),
				rr("new1."+zoneName, "TXT", 300, `"one"`),
				rr("new2."+zoneName, "AAAA", 300, "2001:db8::2"),
			)
			batches := 0
			f.drv.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if strings.HasSuffix(r.URL.Path, "/batch") {
					batches++
					if batches == tt.failAt {
						if tt.status == 0 {
							return nil, fmt.Errorf("connection reset by peer")
						}
						return &http.Response{StatusCode: tt.status, Header: http.Header{"Content-Type": {"application/json"}},
							Body: io.NopCloser(strings.NewReader(`{"success":false,"errors":[{"code":10000,"message":"try again"}],"messages":[],"result":null}`)), Request: r}, nil
					}
				}
				return http.DefaultTransport.RoundTrip(r)
			})
			sp := f.plan(t, step)
			if _, err := f.drv.Apply(context.Background(), sp, f.run); err == nil {
				t.Fatalf("Apply succeeded, want batch %d to fail", tt.failAt)
			}
			again := f.plan(t, step)
			if len(again.Changes) == 0 {
				t.Fatalf("a half-applied zone plans no changes")
			}
			for _, c := range again.Changes {
				if len(c.Gates) > 0 {
					t.Errorf("re-plan after our own half-applied batch needs %v for %s", c.Gates, c.Key)
				}
			}
			f.apply(t, again)
			if last := f.plan(t, step); len(last.Changes) != 0 {
				t.Errorf("not converged: %v\nzone:\n%s", summary(last.Changes), strings.Join(zoneLines(f), "\n"))
			}
			want := []string{
				"hand.sjc.example.net A 192.0.2.9 ",
				"mx.sjc.example.net A 192.0.2.7 " + Marker("sjc"),
				"mx.sjc.example.net A 192.0.2.8 " + Marker("sjc"),
				"new1.sjc.example.net TXT \"one\" " + Marker("sjc"),
				"new2.sjc.example.net AAAA 2001:db8::2 " + Marker("sjc"),
				"www.sjc.example.net CNAME sjc.example.net " + Marker("sjc"),
			}
			if got := zoneLines(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("zone:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestZoneListedInUnicodeIsFound: the zone of an internationalised name
// is found whether the API names it in A-labels or in Unicode.
func TestZoneListedInUnicodeIsFound(t *testing.T) {
	for _, listed := range []string{"xn--bcher-kva.example.net", "bücher.example.net", "BÜCHER.example.net"} {
		t.Run(listed, func(t *testing.T) {
			f := newFixture(t)
			id := f.fake.AddZone("xn--bcher-kva.example.net")
			f.drv.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.URL.Path == "/zones" {
					body := `{"success":true,"errors":[],"messages":[],"result":[{"id":"` + id + `","name":"` + listed + `","status":"active"}],"result_info":{"page":1,"per_page":20,"count":1,"total_count":1,"total_pages":1}}`
					return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
				}
				return http.DefaultTransport.RoundTrip(r)
			})
			step := f.step(rr("www.xn--bcher-kva.example.net.", "A", 300, "192.0.2.1"))
			step.Zone.Name = "xn--bcher-kva.example.net."
			sp := f.plan(t, step)
			if got := summary(sp.Changes); len(got) != 1 {
				t.Errorf("got changes %q, want one create", got)
			}
		})
	}
}
