package cloudflare

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// wideRate is a budget far above the fake's quota, so that only what
// the answers' headers say can keep a run inside that quota.
var wideRate = &model.Rate{Requests: 1000, Per: time.Second}

// TestRatelimitHeadersKeepWithinQuota (issue 29): the fake allows 3
// requests a second and says so in every answer's Ratelimit header, as
// Cloudflare does; a plan and apply of many requests read it and slow
// down, so that none is refused.
func TestRatelimitHeadersKeepWithinQuota(t *testing.T) {
	f := newFixture(t)
	f.drv.RPS = 0 // paced by the provider's rate
	f.fake.SetLimit(3, time.Second)
	var want []*model.RRset
	for _, n := range []string{"a", "b", "c", "d"} {
		want = append(want, rr(n+"."+zoneName, "A", 300, "192.0.2.1"))
	}
	step := f.step(want...)
	step.Zone.Provider.Name, step.Zone.Provider.Rate = "cf", wideRate
	f.drv.ChunkSize = 1 // a batch per record: more requests than one window allows
	f.apply(t, f.plan(t, step))
	if got := f.fake.Count(cftest.EpRateLimited); got != 0 {
		t.Errorf("%d requests were refused with 429, want none: the Ratelimit header says when the quota is spent", got)
	}
	if got := len(f.fake.Records(f.zoneID)); got != len(want) {
		t.Errorf("got %d records, want %d", got, len(want))
	}
}

// TestRateLimitRetryAfterFitsTheRequestTimeout (issue 29): a 429 waits
// what its retry-after asks and is tried again when that fits the run's
// request timeout; when it does not, the request fails at once, tried
// once, and says why.
func TestRateLimitRetryAfterFitsTheRequestTimeout(t *testing.T) {
	for _, tc := range []struct {
		name       string
		retryAfter int
		wantErr    string
	}{
		{"fits", 1, ""},
		{"longer than the request timeout", 5, "longer than the request timeout of 2s (--request-timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.drv.RPS = 0 // paced by the provider's rate
			f.drv.MaxWait = time.Minute
			f.run.RequestTimeout = 2 * time.Second
			var lines []string
			f.run.Progress = func(line string) { lines = append(lines, line) }
			f.fake.RateLimit(1, tc.retryAfter)
			step := f.step()
			step.Zone.Provider.Name, step.Zone.Provider.Rate = "cf", wideRate
			_, err := f.drv.Plan(context.Background(), step, f.run)
			if got := f.fake.Count(cftest.EpRateLimited); got != 1 {
				t.Errorf("got %d refused requests, want 1", got)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("plan: %v", err)
				}
				if len(lines) != 1 || !strings.Contains(lines[0], "waiting 1s before try 2 of 5 as its Retry-After asks") {
					t.Errorf("progress %q, want a wait of 1s as Retry-After asks", lines)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error saying %q", err, tc.wantErr)
			}
		})
	}
}
