package dnsplan_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

const zone = "example.test."

// live is one observed RRset of a case, in the planner's neutral terms.
type live struct {
	name, typ string
	ttl       uint32
	values    []string
	owner     string
	partial   bool
	irregular bool
}

func want(name, typ string, ttl uint32, values ...string) *model.RRset {
	return &model.RRset{Name: name, Type: typ, TTL: ttl, Values: values}
}

// providers are the hooks every case runs with. Before only describes
// and reads each provider's own records, which a neutral case has not.
var providers = []struct {
	name  string
	hooks func() dnsplan.Hooks
}{
	{"powerdns", powerdns.PlanHooks},
	{"cloudflare", cloudflare.PlanHooks},
}

// TestPlan runs one table of cases through the planner with each
// provider's hooks. A case's changes are "action name/type impact
// gates"; where a provider's own rule decides differently, byProvider
// holds its expectation.
func TestPlan(t *testing.T) {
	const a, b = "a.example.test.", "b.example.test."
	ours, other := "office1", "lab"
	tests := []struct {
		name       string
		live       []live
		want       []*model.RRset
		min, pct   int // delete-many thresholds; 0 keeps the defaults
		ignore     []model.IgnoreRule
		changes    []string
		byProvider map[string][]string
	}{
		{name: "converged",
			live: []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours}},
			want: []*model.RRset{want(a, "A", 300, "192.0.2.1")}},
		{name: "the signer's records, even marked ours, are never deleted",
			live: []live{
				{name: zone, typ: "DNSKEY", ttl: 3600, values: []string{"257 3 13 AAAA"}, owner: ours},
				{name: a, typ: "RRSIG", ttl: 300, values: []string{"A 13 3 300 20261201000000 20261101000000 1 example.test. AAAA"}, owner: ours},
				{name: a, typ: "NSEC", ttl: 300, values: []string{"b.example.test. A RRSIG NSEC"}, owner: ours},
				{name: zone, typ: "NSEC3PARAM", ttl: 0, values: []string{"1 0 0 -"}},
			},
			want: []*model.RRset{}},
		{name: "create",
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"create a.example.test./A live"}},
		{name: "our data changed is a live update",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.9"}, owner: ours}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"update a.example.test./A live"}},
		{name: "our TTL changed is a live update",
			live:    []live{{name: a, typ: "A", ttl: 60, values: []string{"192.0.2.1"}, owner: ours}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"update a.example.test./A live"}},
		{name: "our irregular data (disabled, proxied) is rewritten",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours, irregular: true}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"update a.example.test./A live"}},
		{name: "foreign identical is adopted",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"adopt a.example.test./A none"}},
		{name: "identical, partly ours and partly unmarked, is adopted",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1", "192.0.2.2"}, owner: ours, partial: true}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1", "192.0.2.2")},
			changes: []string{"adopt a.example.test./A none"}},
		{name: "another tenant's identical data is a gated takeover",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: other}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"adopt a.example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "foreign different needs GATE-DNS-OVERWRITE",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.9"}}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"update a.example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "foreign irregular data is never identical",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, irregular: true}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"update a.example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "CNAME over foreign A: both gated",
			live: []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}}},
			want: []*model.RRset{want(a, "CNAME", 300, "b.example.test.")},
			changes: []string{"create a.example.test./CNAME overwrite GATE-DNS-OVERWRITE",
				"delete a.example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "A over another tenant's CNAME: both gated",
			live: []live{{name: a, typ: "CNAME", ttl: 300, values: []string{"b.example.test."}, owner: other}},
			want: []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"create a.example.test./A overwrite GATE-DNS-OVERWRITE",
				"delete a.example.test./CNAME overwrite GATE-DNS-OVERWRITE"}},
		{name: "ALIAS over foreign A: both gated",
			live: []live{{name: zone, typ: "A", ttl: 300, values: []string{"192.0.2.1"}}},
			want: []*model.RRset{want(zone, "ALIAS", 300, "b.example.test.")},
			changes: []string{"create example.test./ALIAS overwrite GATE-DNS-OVERWRITE",
				"delete example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "AAAA over another tenant's ALIAS: both gated",
			live: []live{{name: zone, typ: "ALIAS", ttl: 300, values: []string{"b.example.test."}, owner: other}},
			want: []*model.RRset{want(zone, "AAAA", 300, "2001:db8::1")},
			changes: []string{"create example.test./AAAA overwrite GATE-DNS-OVERWRITE",
				"delete example.test./ALIAS overwrite GATE-DNS-OVERWRITE"}},
		{name: "ALIAS beside a foreign apex MX: no conflict",
			live:    []live{{name: zone, typ: "MX", ttl: 300, values: []string{"10 mx.example.test."}}},
			want:    []*model.RRset{want(zone, "ALIAS", 300, "b.example.test.")},
			changes: []string{"create example.test./ALIAS live"}},
		{name: "CNAME over our own A needs no gate",
			live: []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours}},
			want: []*model.RRset{want(a, "CNAME", 300, "b.example.test.")},
			changes: []string{"create a.example.test./CNAME live",
				"delete a.example.test./A live"}},
		{name: "CNAME beside a foreign TXT: the provider's conflict rule",
			live: []live{{name: a, typ: "TXT", ttl: 300, values: []string{`"x"`}}},
			want: []*model.RRset{want(a, "CNAME", 300, "b.example.test.")},
			changes: []string{"create a.example.test./CNAME overwrite GATE-DNS-OVERWRITE",
				"delete a.example.test./TXT overwrite GATE-DNS-OVERWRITE"},
			// Cloudflare refuses a CNAME only beside A, AAAA and CNAME.
			byProvider: map[string][]string{"cloudflare": {"create a.example.test./CNAME live"}}},
		{name: "same data in another spelling: the provider's comparison",
			live:    []live{{name: a, typ: "AAAA", ttl: 300, values: []string{"2001:0db8::1"}, owner: ours}},
			want:    []*model.RRset{want(a, "AAAA", 300, "2001:db8::1")},
			changes: nil,
			// Cloudflare's values are canonical when observed; it compares texts.
			byProvider: map[string][]string{"cloudflare": {"update a.example.test./AAAA live"}}},
		{name: "delete only ours",
			live: []live{
				{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours},
				{name: "e.example.test.", typ: "A", ttl: 300, values: []string{"192.0.2.5"}, owner: ours},
				{name: b, typ: "A", ttl: 300, values: []string{"192.0.2.2"}},
				{name: "c.example.test.", typ: "A", ttl: 300, values: []string{"192.0.2.3"}, owner: other},
				{name: "d.example.test.", typ: "A", ttl: 300, values: []string{"192.0.2.4"}, owner: "office10"},
			},
			want:    []*model.RRset{want("e.example.test.", "A", 300, "192.0.2.5")},
			changes: []string{"delete a.example.test./A live"}},
		{name: "delete-many below the threshold is not gated",
			live: owned(ours, 4), want: owned(ours, 4)[1:].wanted(), min: 3, pct: 30,
			changes: []string{"delete h0.example.test./A live"}},
		{name: "delete-many above the threshold is gated",
			live: owned(ours, 4), want: owned(ours, 4)[2:].wanted(), min: 3, pct: 30,
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY",
				"delete h1.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "delete-many at exactly the minimum of ours is gated",
			live: owned(ours, 3), want: owned(ours, 3)[2:].wanted(), min: 3, pct: 30,
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY",
				"delete h1.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "delete-many needs the minimum of ours in the zone",
			live: owned(ours, 2), want: owned(ours, 2)[1:].wanted(), min: 3, pct: 30,
			changes: []string{"delete h0.example.test./A live"}},
		// Small zones: the percentage rule starts at DeleteManyMin, so
		// below it emptying a zone, or most of it, still needs the gate.
		{name: "small zone: the only rrset of ours going is gated",
			live:    owned(ours, 1),
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "small zone: all 7 of ours going is gated",
			live: owned(ours, 7),
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY", "delete h1.example.test./A live GATE-DNS-DELETE-MANY",
				"delete h2.example.test./A live GATE-DNS-DELETE-MANY", "delete h3.example.test./A live GATE-DNS-DELETE-MANY",
				"delete h4.example.test./A live GATE-DNS-DELETE-MANY", "delete h5.example.test./A live GATE-DNS-DELETE-MANY",
				"delete h6.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "small zone: 2 of 3 of ours going is gated",
			live: owned(ours, 3), want: owned(ours, 3)[2:].wanted(),
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY", "delete h1.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "small zone: half of ours going is not gated",
			live: owned(ours, 4), want: owned(ours, 4)[2:].wanted(),
			changes: []string{"delete h0.example.test./A live", "delete h1.example.test./A live"}},
		{name: "small zone: 1 of 2 of ours going is not gated",
			live: owned(ours, 2), want: owned(ours, 2)[1:].wanted(),
			changes: []string{"delete h0.example.test./A live"}},
		{name: "small zone: all of ours but the apex NS going is gated",
			live:    append(owned(ours, 1), live{name: zone, typ: "NS", ttl: 3600, values: []string{"ns1.example.test."}, owner: ours}),
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "small zone: foreign rrsets do not make ours fewer",
			live:    append(owned(ours, 1), live{name: b, typ: "A", ttl: 300, values: []string{"192.0.2.2"}}),
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "apex NS untouched",
			live: []live{{name: zone, typ: "NS", ttl: 3600, values: []string{"ns1.example.test."}, owner: ours}}},
		{name: "apex NS untouched by a wanted apex CNAME",
			live:    []live{{name: zone, typ: "NS", ttl: 3600, values: []string{"ns1.example.test."}}},
			want:    []*model.RRset{want(zone, "CNAME", 300, "b.example.test.")},
			changes: []string{"create example.test./CNAME live"}},
		{name: "ignored: ours not wanted is not deleted",
			live:   []live{{name: "_acme-challenge." + zone, typ: "TXT", ttl: 60, values: []string{`"token"`}, owner: ours}},
			ignore: []model.IgnoreRule{{Name: "_acme-challenge.*", Type: "TXT"}, {Name: "_acme-challenge." + zone, Type: "TXT"}}},
		{name: "ignored: does not count toward the delete-many gate",
			live: append(owned(ours, 3), live{name: "x.dyn." + zone, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours},
				live{name: "y.dyn." + zone, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: ours}),
			want: owned(ours, 3)[1:].wanted(), min: 3, pct: 30, ignore: []model.IgnoreRule{{Name: "*.dyn." + zone}},
			// 1 of 3 counted is above 30 %; counting the 2 ignored it would be 1 of 5, below.
			changes: []string{"delete h0.example.test./A live GATE-DNS-DELETE-MANY"}},
		{name: "ignored: a foreign RRset does not give way",
			live:    []live{{name: a, typ: "TXT", ttl: 300, values: []string{`"x"`}}},
			want:    []*model.RRset{want(a, "CNAME", 300, "b.example.test.")},
			ignore:  []model.IgnoreRule{{Name: a, Type: "TXT"}},
			changes: []string{"create a.example.test./CNAME live"}},
		{name: "two markers: identical data is a gated takeover",
			live:    []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: dnsplan.Claim(other, ours)}},
			want:    []*model.RRset{want(a, "A", 300, "192.0.2.1")},
			changes: []string{"adopt a.example.test./A overwrite GATE-DNS-OVERWRITE"}},
		{name: "two markers: not wanted",
			live: []live{{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1", "192.0.2.2"}, owner: dnsplan.Claim(ours, other)}},
			// Two markers on one PowerDNS rrset are an unclear claim:
			// nobody deletes it. Cloudflare marks each record, so ours
			// go and the other tenant's stay.
			// (All of ours in the zone, so behind the gate.)
			byProvider: map[string][]string{"cloudflare": {"delete a.example.test./A live GATE-DNS-DELETE-MANY"}}},
	}
	for _, tt := range tests {
		for _, p := range providers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				run := runstate.Start(backends.NewRun())
				if tt.min > 0 {
					run.DeleteManyMin, run.DeleteManyPercent = tt.min, tt.pct
				}
				h := p.hooks()
				h.Before = nil
				step := graph.ZoneStep(&model.Zone{Tenant: ours, Name: zone, RRsets: tt.want, Ignore: tt.ignore})
				res := dnsplan.Plan(step, observed(tt.live), run, h)
				wantChanges := tt.changes
				if c, ok := tt.byProvider[p.name]; ok {
					wantChanges = c
				}
				if got := summary(res); !slices.Equal(got, wantChanges) {
					t.Errorf("got changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantChanges, "\n"))
				}
				if len(res.Ops) != len(res.Changes) {
					t.Errorf("got %d ops for %d changes: every op must be shown, and every change done", len(res.Ops), len(res.Changes))
				}
			})
		}
	}
}

// TestDeleteManySaysWhy: a delete behind GATE-DNS-DELETE-MANY says which
// rule gated it, so that the operator knows whether to acknowledge the
// gate or raise --delete-threshold: the percentage over the threshold,
// every name of ours gone, or more than half of a small zone's.
func TestDeleteManySaysWhy(t *testing.T) {
	const ours = "office1"
	for _, tc := range []struct {
		name     string
		live     lives
		want     []*model.RRset
		min, pct int
		reason   string
	}{
		{"over the threshold", owned(ours, 15), owned(ours, 15)[6:].wanted(), 10, 30,
			"no longer in the spec; 6 of the 15 RRsets site owns in this zone go at once: 40 %, over the 30 % --delete-threshold allows"},
		{"rounded up, never to the threshold", owned(ours, 13), owned(ours, 13)[4:].wanted(), 10, 30,
			"no longer in the spec; 4 of the 13 RRsets site owns in this zone go at once: 31 %, over the 30 % --delete-threshold allows"},
		{"every one", owned(ours, 4), nil, 10, 30,
			"no longer in the spec; 4 of the 4 RRsets site owns in this zone go at once: no name site owns in this zone is left"},
		{"more than half", owned(ours, 3), owned(ours, 3)[2:].wanted(), 10, 30,
			"no longer in the spec; 2 of the 3 RRsets site owns in this zone go at once: more than half"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(backends.NewRun())
			run.DeleteManyMin, run.DeleteManyPercent = tc.min, tc.pct
			step := graph.ZoneStep(&model.Zone{Tenant: ours, Name: zone, RRsets: tc.want})
			res := dnsplan.Plan(step, observed(tc.live), run, powerdns.PlanHooks())
			if len(res.Changes) == 0 {
				t.Fatal("no changes")
			}
			for _, c := range res.Changes {
				if !slices.Contains(c.Gates, plan.GateDNSDeleteMany) {
					t.Errorf("%s: gates %v, want %s", c.Key, c.Gates, plan.GateDNSDeleteMany)
				}
				if c.Reason != tc.reason {
					t.Errorf("%s: reason\n%q, want\n%q", c.Key, c.Reason, tc.reason)
				}
			}
		})
	}
}

type lives []live

// owned is n A RRsets of tenant, h0 to h<n-1>.
func owned(tenant string, n int) lives {
	var out lives
	for i := range n {
		out = append(out, live{name: fmt.Sprintf("h%d.example.test.", i), typ: "A", ttl: 300, values: []string{"192.0.2.1"}, owner: tenant})
	}
	return out
}

// wanted is the spec that wants exactly ls.
func (ls lives) wanted() []*model.RRset {
	var out []*model.RRset
	for _, l := range ls {
		out = append(out, want(l.name, l.typ, l.ttl, l.values...))
	}
	return out
}

func observed(ls []live) *dnsplan.Observed {
	obs := dnsplan.NewObserved(len(ls))
	for _, l := range ls {
		rs := &dnsplan.RRset{NameType: dnsplan.NameType{Name: l.name, Type: l.typ}, TTL: l.ttl, Values: l.values,
			Owner: l.owner, Partial: l.partial, Irregular: l.irregular}
		obs.Sets[rs.NameType] = rs
	}
	return obs
}

func summary(res *dnsplan.Result) []string {
	var out []string
	for _, c := range res.Changes {
		key := strings.TrimPrefix(c.Key, "dns/"+zone+"/")
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", c.Action, key, c.Impact, joinGates(c))))
	}
	return out
}

func joinGates(c plan.Change) string {
	var gates []string
	for _, g := range c.Gates {
		gates = append(gates, string(g))
	}
	return strings.Join(gates, " ")
}

// TestPlanSOA: the zone's soa sets its fields over the live SOA and
// keeps the serial; a converged SOA, or a zone without soa, plans
// nothing.
func TestPlanSOA(t *testing.T) {
	const liveSOA = "ns1.example.test. hostmaster.example.test. 2026113001 10800 3600 604800 3600"
	refresh := uint32(7200)
	tests := []struct {
		name string
		soa  *model.SOA
		want []string // the SOA value written, nil for no change
	}{
		{"no soa", nil, nil},
		{"converged", &model.SOA{Mbox: "hostmaster.example.test."}, nil},
		{"mbox and refresh", &model.SOA{Mbox: "dns.example.test.", Refresh: &refresh},
			[]string{"ns1.example.test. dns.example.test. 2026113001 7200 3600 604800 3600"}},
	}
	for _, tt := range tests {
		for _, p := range providers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				obs := observed(nil)
				obs.SOA = &dnsplan.RRset{NameType: dnsplan.NameType{Name: zone, Type: "SOA"}, TTL: 3600, Values: []string{liveSOA}}
				step := graph.ZoneStep(&model.Zone{Tenant: "office1", Name: zone, SOA: tt.soa})
				h := p.hooks()
				h.Before = nil
				res := dnsplan.Plan(step, obs, runstate.Start(backends.NewRun()), h)
				if tt.want == nil {
					if len(res.Ops) != 0 {
						t.Fatalf("got %q, want no change", summary(res))
					}
					return
				}
				if got := summary(res); len(res.Ops) != 1 || !slices.Equal(got, []string{"update example.test./SOA live"}) || !slices.Equal(res.Ops[0].Values, tt.want) {
					t.Errorf("got %q (%d ops), want one SOA update writing %q", got, len(res.Ops), tt.want)
				}
			})
		}
	}
}

// TestPlanProxied: proxied is compared like the values, and a change of
// it alone is an update whose Before and After say proxied, so the diff
// shows it on its own line.
func TestPlanProxied(t *testing.T) {
	const a = "a.example.test."
	tests := []struct {
		name          string
		live, want    bool
		change        string
		before, after any // the change's "proxied", nil when absent
	}{
		{name: "converged proxied", live: true, want: true},
		{name: "converged unproxied"},
		{name: "turn on", want: true, change: "update a.example.test./A live", before: false, after: true},
		{name: "turn off", live: true, change: "update a.example.test./A live", before: true, after: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := observed([]live{{name: a, typ: "A", ttl: 1, values: []string{"192.0.2.1"}, owner: "office1"}})
			obs.Sets[dnsplan.NameType{Name: a, Type: "A"}].Proxied = tt.live
			w := want(a, "A", 1, "192.0.2.1")
			w.Proxied = tt.want
			h := cloudflare.PlanHooks()
			h.Before = nil
			res := dnsplan.Plan(graph.ZoneStep(&model.Zone{Tenant: "office1", Name: zone, RRsets: []*model.RRset{w}}), obs, runstate.Start(backends.NewRun()), h)
			got := summary(res)
			if tt.change == "" {
				if len(got) != 0 {
					t.Fatalf("got %q, want no change", got)
				}
				return
			}
			if !slices.Equal(got, []string{tt.change}) {
				t.Fatalf("got %q, want %q", got, tt.change)
			}
			c := res.Changes[0]
			if c.Before["proxied"] != tt.before || c.After["proxied"] != tt.after {
				t.Errorf("got proxied %v → %v, want %v → %v", c.Before["proxied"], c.After["proxied"], tt.before, tt.after)
			}
		})
	}
}

// TestPlanKept: Kept names the live RRsets with data that an ignore
// rule kept out of the plan, and nothing else: not what no rule covers,
// not an RRset without records, not the signer's records, which are
// ignored without a rule. Each holds what a change's Before would show
// of it, for a change that replaces it later (backends/lease).
func TestPlanKept(t *testing.T) {
	const a, b = "a.example.test.", "b.example.test."
	obs := observed([]live{
		{name: a, typ: "A", ttl: 300, values: []string{"192.0.2.1"}},
		{name: a, typ: "TXT", ttl: 300, values: []string{`"kept"`}},
		{name: b, typ: "A", ttl: 300}, // only a comment
		{name: b, typ: "TXT", ttl: 300, values: []string{`"not covered"`}, owner: "office1"},
		{name: a, typ: "RRSIG", ttl: 300, values: []string{"A 13 3 300 20261201000000 20261101000000 1 example.test. AAAA"}},
	})
	z := &model.Zone{Tenant: "office1", Name: zone, RRsets: []*model.RRset{want(b, "TXT", 300, `"not covered"`)},
		Ignore: []model.IgnoreRule{{Name: a}, {Name: b, Type: "A"}}}
	res := dnsplan.Plan(graph.ZoneStep(z), obs, runstate.Start(backends.NewRun()), powerdns.PlanHooks())
	var got []string
	for nt := range res.Kept {
		got = append(got, nt.Name+"/"+nt.Type)
	}
	slices.Sort(got)
	if want := []string{a + "/A", a + "/TXT"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	if got, want := res.Kept[dnsplan.NameType{Name: a, Type: "A"}], map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("kept %s A as %#v, want %#v", a, got, want)
	}
	if len(res.Changes) != 0 {
		t.Errorf("changes %q, want none", summary(res))
	}
	if kept := dnsplan.Plan(graph.ZoneStep(&model.Zone{Tenant: "office1", Name: zone}), observed(nil), runstate.Start(backends.NewRun()), powerdns.PlanHooks()).Kept; kept != nil {
		t.Errorf("an empty zone kept %v, want nil", kept)
	}
}
