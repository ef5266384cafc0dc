package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

const testToken = "cf-test-token-5d2e91"

const zoneName = "sjc.example.net."

// fixture is a fake Cloudflare with one zone and a driver pointed at it.
type fixture struct {
	fake   *cftest.Server
	zoneID string
	drv    *Driver
	run    *backends.Run
	// in is what the steps the zone's depends on told it, as the
	// engine passes it (see tell).
	in backends.Inputs
}

// ctx carries f.in to the driver, as the engine does.
func (f *fixture) ctx() context.Context {
	return backends.WithInputs(context.Background(), f.in)
}

// tell is the step of zone telling f's zone its DS, as a signed
// child's step does its parent's.
func (f *fixture) tell(zone string, s backends.SignerDS) {
	if f.in == nil {
		f.in = backends.Inputs{}
	}
	f.in[graph.ZoneStepID(zone)] = backends.Output{Signer: &s}
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	fake := cftest.New(testToken)
	t.Cleanup(fake.Close)
	run := runstate.Start(backends.NewRun())
	run.Getenv = func(k string) string {
		if k == "CLOUDFLARE_API_TOKEN" {
			return testToken
		}
		return ""
	}
	return &fixture{fake: fake, zoneID: fake.AddZone(zoneName), run: run,
		drv: &Driver{RPS: 1e6, MaxWait: 20 * time.Millisecond}}
}

func rr(name, typ string, ttl uint32, values ...string) *model.RRset {
	sort.Strings(values)
	return &model.RRset{Name: name, Type: typ, TTL: ttl, Values: values}
}

func (f *fixture) step(rrsets ...*model.RRset) *graph.Step {
	z := &model.Zone{Tenant: "sjc", Name: zoneName, TTL: 300, RRsets: rrsets,
		Provider: model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Env: "CLOUDFLARE_API_TOKEN"}, APIURL: f.fake.URL}}}
	return &graph.Step{ID: graph.ZoneStepID(zoneName), Phase: plan.PhaseDNS, Tenant: "sjc", Zone: z}
}

func (f *fixture) plan(t testing.TB, step *graph.Step) *backends.StepPlan {
	t.Helper()
	sp, err := f.drv.Plan(f.ctx(), step, f.run)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return sp
}

func (f *fixture) apply(t testing.TB, sp *backends.StepPlan) *backends.StepResult {
	t.Helper()
	res, err := f.drv.Apply(f.ctx(), sp, f.run)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func (f *fixture) add(t testing.TB, r cftest.Record) string {
	t.Helper()
	id, err := f.fake.AddRecord(f.zoneID, r)
	if err != nil {
		t.Fatalf("AddRecord %+v: %v", r, err)
	}
	return id
}

// zoneCase is a row of the tables that plan a zone over records already
// there, apply the plan and read the zone back.
type zoneCase struct {
	name     string
	existing []cftest.Record
	want     []*model.RRset
	changes  []string // summary lines of the plan
	after    []string // zoneLines after apply, with every gate acknowledged
}

// planCase adds tc's existing records, plans its wanted RRsets and ends
// the test unless the plan makes tc's changes.
func (f *fixture) planCase(t testing.TB, tc zoneCase) (*graph.Step, *backends.StepPlan) {
	t.Helper()
	for _, r := range tc.existing {
		f.add(t, r)
	}
	step := f.step(tc.want...)
	sp := f.plan(t, step)
	if got := summary(sp.Changes); strings.Join(got, "\n") != strings.Join(tc.changes, "\n") {
		t.Fatalf("got changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.changes, "\n"))
	}
	return step, sp
}

// checkAfter fails the test unless, after apply, the zone holds after
// and a second plan of step changes nothing.
func (f *fixture) checkAfter(t testing.TB, step *graph.Step, after []string) {
	t.Helper()
	if got := zoneLines(f); strings.Join(got, "\n") != strings.Join(after, "\n") {
		t.Errorf("zone after apply:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(after, "\n"))
	}
	if again := f.plan(t, step); len(again.Changes) != 0 {
		t.Errorf("not converged: %v", summary(again.Changes))
	}
}

// zoneLines renders the fake's records of the zone as sorted
// "name type content comment" lines for comparison.
func zoneLines(f *fixture) []string {
	var got []string
	for _, r := range f.fake.Records(f.zoneID) {
		got = append(got, fmt.Sprintf("%s %s %s %s", r.Name, r.Type, r.Content, r.Comment))
	}
	sort.Strings(got)
	return got
}

// summary renders changes as "action key gates" lines for comparison.
func summary(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		line := fmt.Sprintf("%s %s", c.Action, strings.TrimPrefix(c.Key, "dns/"+zoneName+"/"))
		for _, g := range c.Gates {
			line += " " + string(g)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

func allTypes() []*model.RRset {
	return []*model.RRset{
		rr(zoneName, "MX", 300, "10 mx.example.org.", "20 mx2.example.org."),
		rr(zoneName, "TXT", 300, `"v=spf1 -all"`),
		rr(zoneName, "CAA", 300, `0 issue "letsencrypt.org"`),
		rr("keys."+zoneName, "A", 300, "203.0.113.10"),
		rr("keys."+zoneName, "AAAA", 300, "2001:db8::10"),
		rr("*.apps."+zoneName, "A", 300, "203.0.113.11"),
		rr("www."+zoneName, "CNAME", 300, zoneName),
		rr("_sip._tcp."+zoneName, "SRV", 300, "10 5 5060 sip.example.org."),
		rr("sub."+zoneName, "NS", 3600, "ns1.example.org.", "ns2.example.org."),
	}
}

func TestCreateThenConverged(t *testing.T) {
	f := newFixture(t)
	step := f.step(allTypes()...)
	sp := f.plan(t, step)
	want := []string{"create *.apps.sjc.example.net./A", "create _sip._tcp.sjc.example.net./SRV", "create keys.sjc.example.net./A",
		"create keys.sjc.example.net./AAAA", "create sjc.example.net./CAA", "create sjc.example.net./MX",
		"create sjc.example.net./TXT", "create sub.sjc.example.net./NS", "create www.sjc.example.net./CNAME"}
	if got := summary(sp.Changes); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f.fake.ResetCounts()
	f.apply(t, sp)
	if got := f.fake.Count(cftest.EpBatch); got != 1 {
		t.Errorf("got %d batch calls, want 1", got)
	}
	if got := f.fake.Count(cftest.EpCreate) + f.fake.Count(cftest.EpPatch) + f.fake.Count(cftest.EpDelete); got != 0 {
		t.Errorf("got %d single-record writes, want 0 (batch only)", got)
	}
	recs := f.fake.Records(f.zoneID)
	if len(recs) != 11 {
		t.Errorf("got %d records, want 11", len(recs))
	}
	for _, r := range recs {
		if r.Comment != Marker("sjc") {
			t.Errorf("record %s %s: got comment %q, want %q", r.Name, r.Type, r.Comment, Marker("sjc"))
		}
		if strings.HasSuffix(r.Name, ".") {
			t.Errorf("record name %q has a trailing dot", r.Name)
		}
	}
	again := f.plan(t, step)
	if len(again.Changes) != 0 {
		t.Errorf("after apply: got changes %v, want none", summary(again.Changes))
	}
	if again.Fingerprint == sp.Fingerprint {
		t.Errorf("fingerprint did not change after apply")
	}
}

func TestOwnership(t *testing.T) {
	const keys = "keys." + zoneName
	tests := []zoneCase{
		{"identical foreign record is adopted",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"adopt keys.sjc.example.net./A"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"different foreign content is gated",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "192.0.2.99", TTL: 300, Comment: "hand made"}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"update keys.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"foreign TTL differs is gated",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 3600}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"update keys.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"our record with new content is updated",
			[]cftest.Record{{Name: "keys.sjc.example.net", Type: "A", Content: "192.0.2.99", TTL: 300, Comment: Marker("sjc")}},
			[]*model.RRset{rr(keys, "A", 300, "203.0.113.10")},
			[]string{"update keys.sjc.example.net./A"},
			[]string{"keys.sjc.example.net A 203.0.113.10 managed by site tenant=sjc"}},
		{"foreign A where a CNAME is wanted is gated",
			[]cftest.Record{{Name: "www.sjc.example.net", Type: "A", Content: "192.0.2.5", TTL: 300}},
			[]*model.RRset{rr("www."+zoneName, "CNAME", 300, zoneName)},
			[]string{"create www.sjc.example.net./CNAME GATE-DNS-OVERWRITE", "delete www.sjc.example.net./A GATE-DNS-OVERWRITE"},
			[]string{"www.sjc.example.net CNAME sjc.example.net managed by site tenant=sjc"}},
		{"foreign records elsewhere and other tenants' records are untouched",
			[]cftest.Record{
				{Name: "hand.sjc.example.net", Type: "A", Content: "192.0.2.7", TTL: 300},
				{Name: "other.sjc.example.net", Type: "TXT", Content: `"x"`, TTL: 300, Comment: Marker("office1")},
			},
			nil, nil,
			[]string{"hand.sjc.example.net A 192.0.2.7 ", `other.sjc.example.net TXT "x" managed by site tenant=office1`}},
		{"our record no longer wanted is deleted",
			[]cftest.Record{{Name: "old.sjc.example.net", Type: "A", Content: "192.0.2.8", TTL: 300, Comment: Marker("sjc")}},
			nil,
			// The only record of ours: GATE-DNS-DELETE-MANY.
			[]string{"delete old.sjc.example.net./A GATE-DNS-DELETE-MANY"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			step, sp := f.planCase(t, tt)
			f.fake.ResetCounts()
			f.apply(t, sp)
			if n := f.fake.Count(cftest.EpCreate); n != 0 {
				t.Errorf("got %d creates outside batches, want 0", n)
			}
			f.checkAfter(t, step, tt.after)
		})
	}
}

func TestDeleteManyNeedsGate(t *testing.T) {
	tests := []struct {
		name   string
		keep   int
		gated  bool
		delete int
	}{
		{"3 of 10 is within 30%", 7, false, 3},
		{"4 of 10 is over 30%", 6, true, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var want []*model.RRset
			for i := range 10 {
				name := fmt.Sprintf("h%d.%s", i, zoneName)
				f.add(t, cftest.Record{Name: strings.TrimSuffix(name, "."), Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")})
				if i < tt.keep {
					want = append(want, rr(name, "A", 300, "192.0.2.1"))
				}
			}
			sp := f.plan(t, f.step(want...))
			n, gated := 0, 0
			for _, c := range sp.Changes {
				if c.Action == plan.ActionDelete {
					n++
				}
				for _, g := range c.Gates {
					if g == plan.GateDNSDeleteMany {
						gated++
					}
				}
			}
			if n != tt.delete {
				t.Errorf("got %d deletes, want %d", n, tt.delete)
			}
			if (gated > 0) != tt.gated || (tt.gated && gated != n) {
				t.Errorf("got %d gated deletes of %d, want gated=%v", gated, n, tt.gated)
			}
		})
	}
}

// A record appears between plan and apply: the batch gets an "already
// exists" code, the driver re-observes once and converges without a
// blind retry.
func TestStaleObservationReplansOnce(t *testing.T) {
	f := newFixture(t)
	step := f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"), rr("www."+zoneName, "CNAME", 300, zoneName))
	sp := f.plan(t, step)
	f.add(t, cftest.Record{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300})
	f.fake.ResetCounts()
	res := f.apply(t, sp)
	if got := f.fake.Count(cftest.EpBatch); got != 2 {
		t.Errorf("got %d batch calls, want 2 (the stale one, then the re-planned one)", got)
	}
	if got := f.fake.Count(cftest.EpList); got != 2 {
		t.Errorf("got %d list calls, want 2 (one re-observation, one read-back)", got)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "re-planned") {
		t.Errorf("notes %q do not say the zone was re-planned", res.Notes)
	}
	if again := f.plan(t, step); len(again.Changes) != 0 {
		t.Errorf("not converged: %v", summary(again.Changes))
	}
}

func TestStaleObservationNeedingGateStops(t *testing.T) {
	f := newFixture(t)
	step := f.step(rr("www."+zoneName, "CNAME", 300, zoneName))
	sp := f.plan(t, step)
	f.add(t, cftest.Record{Name: "www.sjc.example.net", Type: "A", Content: "192.0.2.5", TTL: 300})
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	if err == nil || !strings.Contains(err.Error(), string(plan.GateDNSOverwrite)) {
		t.Fatalf("got %v, want an error naming %s", err, plan.GateDNSOverwrite)
	}
	if recs := f.fake.Records(f.zoneID); len(recs) != 1 || recs[0].Type != "A" {
		t.Errorf("zone changed: %+v", recs)
	}
}

func TestFailedBatchChangedNothing(t *testing.T) {
	f := newFixture(t)
	f.drv.ChunkSize = 2
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"), rr("b."+zoneName, "A", 300, "192.0.2.2"),
		rr("c."+zoneName, "A", 300, "192.0.2.3"), rr("d."+zoneName, "A", 300, "192.0.2.4"), rr("e."+zoneName, "A", 300, "192.0.2.5"))
	f.drv.Transport = refuseBatch(2, nil)
	sp := f.plan(t, step)
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	var be *BatchError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *BatchError", err)
	}
	if be.Index != 2 || be.Of != 3 || be.Applied != 2 {
		t.Errorf("got batch %d of %d with %d applied, want 2 of 3 with 2", be.Index, be.Of, be.Applied)
	}
	if Classify(err) != backends.ClassInvalid {
		t.Errorf("got class %s, want %s", Classify(err), backends.ClassInvalid)
	}
	for _, want := range []string{"changed nothing", "2 operations in earlier batches were applied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := len(f.fake.Records(f.zoneID)); got != 2 {
		t.Errorf("got %d records, want 2 (the first batch only)", got)
	}
}

// refuseBatch answers the n-th batch request with a 400 validation
// error, as Cloudflare refuses a batch for a reason site could not check
// first; every other request goes to the fake. batches, when not nil,
// counts the batch requests.
func refuseBatch(n int, batches *int) http.RoundTripper {
	seen := 0
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.URL.Path, "/batch") {
			seen++
			if batches != nil {
				*batches = seen
			}
			if seen == n {
				return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{"Content-Type": {"application/json"}},
					Body:    io.NopCloser(strings.NewReader(`{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}],"messages":[],"result":null}`)),
					Request: r}, nil
			}
		}
		return http.DefaultTransport.RoundTrip(r)
	})
}

func TestRateLimit(t *testing.T) {
	t.Run("honoured", func(t *testing.T) {
		f := newFixture(t)
		f.fake.RateLimit(2, 0)
		sp := f.plan(t, f.step(rr("a."+zoneName, "A", 300, "192.0.2.1")))
		if got := f.fake.Count(cftest.EpRateLimited); got != 2 {
			t.Errorf("got %d rate-limited answers, want 2", got)
		}
		f.fake.RateLimit(1, 0)
		f.apply(t, sp)
		if got := len(f.fake.Records(f.zoneID)); got != 1 {
			t.Errorf("got %d records, want 1", got)
		}
	})
	t.Run("gives up as transient", func(t *testing.T) {
		f := newFixture(t)
		f.drv.Retries = 2
		f.fake.RateLimit(100, 0)
		_, err := f.drv.Plan(context.Background(), f.step(), f.run)
		if Classify(err) != backends.ClassTransient {
			t.Fatalf("got %v (class %s), want a transient error", err, Classify(err))
		}
		if !strings.Contains(err.Error(), "429") {
			t.Errorf("error %q does not mention the rate limit", err)
		}
		if got := f.fake.Count(cftest.EpRateLimited); got != 3 {
			t.Errorf("got %d attempts, want 3", got)
		}
	})
}

// TestRateLimitWaitIsSaid: a 429 makes site wait what Retry-After asks,
// up to a minute a try and four tries: it says so, naming the server and
// the request, rather than leaving diff and apply silent all that time.
func TestRateLimitWaitIsSaid(t *testing.T) {
	f := newFixture(t)
	var lines []string
	f.run.Progress = func(line string) { lines = append(lines, line) }
	f.fake.RateLimit(1, 30)
	step := f.step()
	step.Zone.Provider.Name = "cf"
	f.plan(t, step)
	if len(lines) != 1 {
		t.Fatalf("got progress lines %q, want one about the rate limit", lines)
	}
	want := "Cloudflare cf (" + f.fake.URL + ") answered HTTP 429 (rate limited) to GET zones: waiting 20ms before try 2 of 5 (its Retry-After of 30s is capped at 20ms)"
	if lines[0] != want {
		t.Errorf("got %q, want %q", lines[0], want)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*fixture, *graph.Step)
		class backends.Class
		want  string
	}{
		{"wrong token", func(f *fixture, s *graph.Step) {
			f.run.Getenv = func(k string) string {
				if k == "CLOUDFLARE_API_TOKEN" {
					return "not-the-token"
				}
				return ""
			}
		}, backends.ClassAuth, "Cloudflare refused the API token from env CLOUDFLARE_API_TOKEN: it needs Zone:Read"},
		// Nothing listens on port 1 of loopback: the cause comes first,
		// then what to do ends the message.
		{"no answer", func(f *fixture, s *graph.Step) { s.Zone.Provider.Cloudflare.APIURL = "http://127.0.0.1:1/client/v4" },
			backends.ClassTransient, "connection refused; a temporary failure: re-run later"},
		{"unknown zone", func(f *fixture, s *graph.Step) { s.Zone.Name = "nope.example.net." }, "", "has no zone nope.example.net that the token from env CLOUDFLARE_API_TOKEN can see"},
		{"token unset", func(f *fixture, s *graph.Step) { f.run.Getenv = func(string) string { return "" } }, "", "CLOUDFLARE_API_TOKEN"},
		{"batch size out of range", func(f *fixture, s *graph.Step) {
			f.run.Getenv = func(k string) string {
				return map[string]string{"CLOUDFLARE_API_TOKEN": testToken, EnvBatchSize: "5000"}[k]
			}
		}, "", "SITE_CLOUDFLARE_BATCH_SIZE=\"5000\": set it to a number of operations from 1 to 3500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.step()
			tt.setup(f, s)
			_, err := f.drv.Plan(context.Background(), s, f.run)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if tt.class != "" && Classify(err) != tt.class {
				t.Errorf("got class %s, want %s", Classify(err), tt.class)
			}
			if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "not-the-token") {
				t.Errorf("error %q contains a token", err)
			}
		})
	}
}

func TestAPIURLFromEnvironment(t *testing.T) {
	f := newFixture(t)
	s := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"))
	s.Zone.Provider.Cloudflare.APIURL = ""
	f.run.Getenv = func(k string) string {
		switch k {
		case "CLOUDFLARE_API_TOKEN":
			return testToken
		case EnvAPIURL:
			return f.fake.URL
		}
		return ""
	}
	if sp := f.plan(t, s); len(sp.Changes) != 1 {
		t.Errorf("got %d changes, want 1", len(sp.Changes))
	}
}

func TestBatchSizeFromEnvironment(t *testing.T) {
	f := newFixture(t)
	f.run.Getenv = func(k string) string {
		return map[string]string{"CLOUDFLARE_API_TOKEN": testToken, EnvBatchSize: "2"}[k]
	}
	var rrs []*model.RRset
	for i := range 5 {
		rrs = append(rrs, rr(fmt.Sprintf("h%d.%s", i, zoneName), "A", 300, "192.0.2.1"))
	}
	f.apply(t, f.plan(t, f.step(rrs...)))
	if got := f.fake.Count(cftest.EpBatch); got != 3 {
		t.Errorf("got %d batch calls, want 3", got)
	}
}

// roundTripFunc lets a test act between the driver and the fake.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A writer racing every batch makes each one stale; the driver
// re-observes and re-plans once, then reports the conflict instead of
// trying a third time.
func TestStaleTwiceIsReported(t *testing.T) {
	f := newFixture(t)
	n := 0
	f.drv.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.URL.Path, "/batch") {
			n++
			f.add(t, cftest.Record{Name: fmt.Sprintf("h%d.sjc.example.net", n), Type: "A", Content: "192.0.2.1", TTL: 300})
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	step := f.step(rr("h1."+zoneName, "A", 300, "192.0.2.1"), rr("h2."+zoneName, "A", 300, "192.0.2.1"))
	sp := f.plan(t, step)
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	if err == nil || !strings.Contains(err.Error(), "after re-observing the zone once") {
		t.Fatalf("got %v, want the conflict reported after one re-observation", err)
	}
	if Classify(err) != backends.ClassConflict {
		t.Errorf("got class %s, want %s", Classify(err), backends.ClassConflict)
	}
	if got := f.fake.Count(cftest.EpBatch); got != 2 {
		t.Errorf("got %d batch calls, want 2", got)
	}
}

// TestTransientErrorSaysHowOftenItTried: a write that failed on the
// server is never repeated, and the message must not claim retries.
func TestTransientErrorSaysHowOftenItTried(t *testing.T) {
	tests := []struct {
		err  *TransientError
		want string
	}{
		{&TransientError{Status: 503, Tries: 1}, "HTTP 503 after one try (a write that may have committed is never repeated)"},
		{&TransientError{Status: 502, Tries: 4}, "HTTP 502 after 4 tries"},
		{&TransientError{Status: 429, Tries: 4, RetryAfter: 2 * time.Second}, "(HTTP 429) still in force after 4 tries (Retry-After 2s)"},
		{&TransientError{Err: errors.New("connection refused"), Tries: 1}, "no answer from Cloudflare after one try"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestAckCoversOnlyTheChangesShown: after a stale observation the new plan
// may hold gated changes the user never saw; an --ack given for another
// change must not let them through.
func TestAckCoversOnlyTheChangesShown(t *testing.T) {
	f := newFixture(t)
	// A foreign A at api is known and shown: overwriting it needs the gate.
	f.add(t, cftest.Record{Name: "api.sjc.example.net", Type: "A", Content: "192.0.2.9", TTL: 300})
	step := f.step(rr("api."+zoneName, "A", 300, "192.0.2.1"), rr("www."+zoneName, "CNAME", 300, zoneName))
	sp := f.plan(t, step)
	f.run.Acked[plan.GateDNSOverwrite] = true
	// Mid-run, someone writes an A at www, where our CNAME goes: the batch
	// meets 81053, site looks again, and the CNAME now needs the gate too.
	f.add(t, cftest.Record{Name: "www.sjc.example.net", Type: "A", Content: "192.0.2.5", TTL: 300})
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	if err == nil || !strings.Contains(err.Error(), "newly needs "+string(plan.GateDNSOverwrite)) {
		t.Fatalf("got %v, want a refusal naming the newly gated change", err)
	}
	for _, r := range f.fake.Records(f.zoneID) {
		if r.Name == "www.sjc.example.net" && r.Type != "A" {
			t.Errorf("the record that appeared mid-run was replaced: %+v", r)
		}
	}
}

// TestProxied: proxied is a managed field. A proxied name is created
// proxied (TTL 1, automatic) and then converged; turning the proxy off
// is an update of ours that writes proxied false; a live proxied record
// another hand made is adopted when the spec wants it proxied.
func TestProxied(t *testing.T) {
	f := newFixture(t)
	proxied := func(on bool, ttl uint32) *model.RRset {
		r := rr("www."+zoneName, "A", ttl, "203.0.113.10")
		r.Proxied = on
		return r
	}
	live := func() cftest.Record {
		recs := f.fake.Records(f.zoneID)
		if len(recs) != 1 {
			t.Fatalf("got %d records, want 1", len(recs))
		}
		return recs[0]
	}
	steps := []struct {
		name    string
		want    *model.RRset
		changes []string
		proxied bool
		ttl     int
	}{
		{"create proxied", proxied(true, 1), []string{"create www.sjc.example.net./A"}, true, 1},
		{"turn the proxy off", proxied(false, 300), []string{"update www.sjc.example.net./A"}, false, 300},
		{"turn it on again", proxied(true, 1), []string{"update www.sjc.example.net./A"}, true, 1},
	}
	for _, s := range steps {
		step := f.step(s.want)
		sp := f.plan(t, step)
		if got := summary(sp.Changes); strings.Join(got, "\n") != strings.Join(s.changes, "\n") {
			t.Fatalf("%s: got changes %q, want %q", s.name, got, s.changes)
		}
		if c := sp.Changes[0]; c.After["proxied"] != s.proxied {
			t.Errorf("%s: change After proxied = %v, want %v", s.name, c.After["proxied"], s.proxied)
		}
		// Our own record stays ours: no owner line in the diff (it
		// read "owner: [t1] → (none)", as if the marker went away).
		if c := sp.Changes[0]; c.Action == plan.ActionUpdate && c.Before["owner"] != c.After["owner"] {
			t.Errorf("%s: owner %v → %v, want it unchanged", s.name, c.Before["owner"], c.After["owner"])
		}
		f.apply(t, sp)
		if r := live(); r.Proxied != s.proxied || r.TTL != s.ttl {
			t.Errorf("%s: live record proxied %t TTL %d, want %t %d", s.name, r.Proxied, r.TTL, s.proxied, s.ttl)
		}
		if again := f.plan(t, step); len(again.Changes) != 0 {
			t.Errorf("%s: after apply got changes %q, want none", s.name, summary(again.Changes))
		}
	}

	g := newFixture(t)
	g.add(t, cftest.Record{Name: "www.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 1, Proxied: true})
	if got := summary(g.plan(t, g.step(proxied(true, 1))).Changes); strings.Join(got, "") != "adopt www.sjc.example.net./A" {
		t.Errorf("foreign proxied record wanted proxied: got %q, want an adopt", got)
	}
	over := g.plan(t, g.step(proxied(false, 1))).Changes
	if got := summary(over); strings.Join(got, "") != "update www.sjc.example.net./A GATE-DNS-OVERWRITE" {
		t.Errorf("foreign proxied record wanted unproxied: got %q, want a gated overwrite", got)
	}
	g.add(t, cftest.Record{Name: "www.sjc.example.net", Type: "A", Content: "203.0.113.11", TTL: 1, Proxied: true, Comment: Marker("other")})
	if c := g.plan(t, g.step(proxied(false, 1))).Changes[0]; c.Before["owner"] != "(none), other" || c.After["owner"] != "sjc" {
		t.Errorf("overwrite of records held by nobody and by other: owner %v → %v, want \"(none), other\" → %s", c.Before["owner"], c.After["owner"], "sjc")
	}
}

// TestNotesCountInWords: one record is "1 operation in 1 batch request",
// not "1 operations in 1 batch request(s)".
func TestNotesCountInWords(t *testing.T) {
	f := newFixture(t)
	res := f.apply(t, f.plan(t, f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"))))
	if got, want := strings.Join(res.Notes, "\n"), "sent 1 operation in 1 batch request"; !strings.Contains(got, want) {
		t.Errorf("notes %q do not say %q", got, want)
	}
	e := &BatchError{Zone: zoneName, Index: 2, Of: 2, Applied: 1, Err: errors.New("HTTP 500")}
	if want := "1 operation in earlier batches was applied"; !strings.Contains(e.Error(), want) {
		t.Errorf("got %q, want it to say %q", e.Error(), want)
	}
}

// TestProxiedApexAlias: an ALIAS is Cloudflare's CNAME at the apex, and
// Cloudflare proxies it as any CNAME: written proxied, read back as the
// proxied ALIAS it is, converged. (vet refused proxied: true beside an
// ALIAS, so a proxied apex could not be said at all.)
func TestProxiedApexAlias(t *testing.T) {
	f := newFixture(t)
	alias := rr(zoneName, "ALIAS", 1, "lb.example.org.")
	alias.Proxied = true
	step := f.step(alias)
	sp := f.plan(t, step)
	if got := summary(sp.Changes); strings.Join(got, "") != "create "+zoneName+"/ALIAS" {
		t.Fatalf("got %q, want the apex created", got)
	}
	f.apply(t, sp)
	recs := f.fake.Records(f.zoneID)
	if len(recs) != 1 || recs[0].Type != "CNAME" || !recs[0].Proxied || recs[0].TTL != 1 {
		t.Fatalf("live records %+v, want one proxied CNAME at the apex", recs)
	}
	if again := f.plan(t, step); len(again.Changes) != 0 {
		t.Errorf("after apply got changes %q, want none", summary(again.Changes))
	}
}

// TestRefusedTokenNamesItsSource: when Cloudflare refuses the token,
// the message names where it came from (the environment variable, or
// the store, path and key of the vault secret), never the token, and
// the permission the refused request needs on the zone: Zone:Read to
// find it in the zone list, Zone:DNS:Edit to write its records.
func TestRefusedTokenNamesItsSource(t *testing.T) {
	const readOnly = "cf-read-only-token-77e1"
	vaultRef := &model.VaultRef{Vault: "bao", Path: "dns/cloudflare", Key: "token"}
	for _, tc := range []struct {
		name  string
		token string
		cred  model.Credential
		write bool // refused on write (Apply), not on the zone lookup (Plan)
		want  []string
	}{
		{"wrong token from env", "not-the-token", model.Credential{Env: "CF_TOKEN"}, false, []string{
			"looking up Cloudflare zone sjc.example.net: ",
			"Cloudflare refused the API token from env CF_TOKEN: ",
			"it needs Zone:Read to find zone sjc.example.net in the zone list",
		}},
		{"read-only token from env", readOnly, model.Credential{Env: "CF_TOKEN"}, true, []string{
			"Cloudflare refused the API token from env CF_TOKEN: ",
			"it needs Zone:DNS:Edit on zone sjc.example.net",
		}},
		{"read-only token from vault", readOnly, model.Credential{Vault: vaultRef}, true, []string{
			"Cloudflare refused the API token from vault bao dns/cloudflare#token: ",
			"it needs Zone:DNS:Edit on zone sjc.example.net",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.fake.ReadOnlyToken(readOnly)
			f.run.Getenv = func(k string) string {
				if k == "CF_TOKEN" {
					return tc.token
				}
				return ""
			}
			if tc.cred.Vault != nil {
				runstate.Secrets(f.run).SetSecret(graph.SecretStepID(*tc.cred.Vault), tc.token)
			}
			s := f.step(rr("keys."+zoneName, "A", 300, "192.0.2.1"))
			s.Zone.Provider.Cloudflare.Token = tc.cred
			sp, err := f.drv.Plan(context.Background(), s, f.run)
			if tc.write {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				_, err = f.drv.Apply(context.Background(), sp, f.run)
			}
			if err == nil {
				t.Fatal("got no error, want the token refused")
			}
			if Classify(err) != backends.ClassAuth {
				t.Errorf("got class %s, want %s", Classify(err), backends.ClassAuth)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%s", w, err)
				}
			}
			if strings.Contains(err.Error(), tc.token) {
				t.Errorf("error contains the token:\n%s", err)
			}
		})
	}
}
