package powerdns

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// countingProxy forwards to target and notes when each request arrived.
type countingProxy struct {
	*httptest.Server
	mu  sync.Mutex
	arr []time.Time
}

func newCountingProxy(t *testing.T, target string) *countingProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &countingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.arr = append(p.arr, time.Now())
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// busiestWindow is the most requests that arrived within any window of
// per (a window opening at each arrival holds the most).
func (p *countingProxy) busiestWindow(per time.Duration) (most, total int) {
	p.mu.Lock()
	arr := slices.Clone(p.arr)
	p.mu.Unlock()
	slices.SortFunc(arr, func(a, b time.Time) int { return a.Compare(b) })
	for i := range arr {
		n := 0
		for j := i; j < len(arr) && arr[j].Sub(arr[i]) < per; j++ {
			n++
		}
		most = max(most, n)
	}
	return most, len(arr)
}

// TestRateKeepsEveryWindowWithinBudget (issue 29): zones applied from
// empty, in parallel steps, to a provider with a rate never send it
// more requests in any window than the rate allows, as a proxy in front
// of the real server counts them, and the apply completes. The second
// row is the issue's own case (30 zones, 20 requests per 10 s; about a
// minute, so not with -short).
func TestRateKeepsEveryWindowWithinBudget(t *testing.T) {
	for _, tc := range []struct {
		zones int
		rate  model.Rate
		long  bool
	}{
		{12, model.Rate{Requests: 5, Per: time.Second}, false},
		{30, model.Rate{Requests: 20, Per: 10 * time.Second}, true},
	} {
		t.Run(fmt.Sprintf("%d zones at %d per %s", tc.zones, tc.rate.Requests, tc.rate.Per), func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("about a minute: run without -short")
			}
			applyWithinRate(t, tc.zones, &tc.rate)
		})
	}
}

// applyWithinRate applies n zones from empty through a counting proxy
// to a provider of rate, and checks every window of it.
func applyWithinRate(t *testing.T, n int, rate *model.Rate) {
	srv := pdnstest.Shared(t)
	proxy := newCountingProxy(t, srv.URL)
	var steps []*graph.Step
	for i := range n {
		zone := fmt.Sprintf("z%d.budget%d.test.", i, n)
		t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
		s := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"), rr(zone, "TXT", 300, `"v=1"`))
		s.Zone.Provider.Name = "paced"
		s.Zone.Provider.PowerDNS.URL = proxy.URL
		s.Zone.Provider.Rate = rate
		steps = append(steps, s)
	}
	e, g := engineFor(t, testDriver(), steps...)
	e.Parallelism = 6
	run := newRun(srv)
	start := time.Now()
	obs, err := e.Plan(context.Background(), g, run)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(context.Background(), g, obs, run)
	if err != nil || !rep.OK() {
		t.Fatalf("apply: %v %+v", err, rep)
	}
	most, total := proxy.busiestWindow(rate.Per)
	t.Logf("%d zones: %d requests in %s, at most %d in one window of %s", n, total, time.Since(start).Round(time.Second), most, rate.Per)
	if most > rate.Requests {
		t.Errorf("%d of %d requests arrived within one window of %s, want at most %d", most, total, rate.Per, rate.Requests)
	}
	if total < 2*len(steps) {
		t.Errorf("the proxy saw %d requests, want at least a read and a write for each of %d zones", total, len(steps))
	}
	for _, s := range steps {
		if !srv.Exists(t, s.Zone.Name) {
			t.Errorf("zone %s was not created", s.Zone.Name)
		}
	}
}
