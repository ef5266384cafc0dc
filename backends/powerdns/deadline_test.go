package powerdns

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestInterruptDuringAPatchSendsNothingMore: Ctrl-C while a PATCH is
// on the wire lets that PATCH finish, and when its answer is lost (a
// proxy's 502, so PowerDNS never applied it) site does not send it
// again: the server receives no request after the interrupt (issue 27:
// the part was re-sent twice, 10 s and 20 s after "starting nothing
// new").
func TestInterruptDuringAPatchSendsNothingMore(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "noretry.test."
	srv.CreateZone(t, zone)
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	d, run := testDriver(), newRun(srv) // three tries, as by default
	sp := mustPlan(t, d, zoneStep(srv, "office1", zone, manyA(zone, 3)...), run)

	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var afterInterrupt atomic.Int32
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if run.Interrupted() {
			afterInterrupt.Add(1)
		}
		if r.Method != http.MethodPatch {
			return 0, "", false
		}
		once.Do(func() { close(held); <-release })
		return http.StatusBadGateway, `{"error":"the proxy lost the answer"}`, true
	})
	go func() { <-held; runstate.Interrupts(run).Interrupt(); close(release) }()
	_, err := d.Apply(context.Background(), sp, run)
	if got := srv.Requests(zone).PATCH; got != 1 {
		t.Errorf("PowerDNS got %d PATCHes, want only the one on the wire at the interrupt", got)
	}
	if n := afterInterrupt.Load(); n != 0 {
		t.Errorf("%d requests arrived after the interrupt, want none", n)
	}
	if err == nil || !errors.As(err, new(*backends.NotRetriedError)) || !strings.Contains(err.Error(), "may have applied") {
		t.Errorf("Apply: got %v, want the PATCH's failure, not retried for the interrupt, saying it may have applied", err)
	}
}

// TestSilentServerGivesUpWithinTheRequestTimeout: a server that never
// answers costs one request timeout (the run's, site's
// --request-timeout), its retries included, and the error names the
// server and the setting; the run then asks that server nothing more:
// the next zone's read fails at once, unsent (issue 27: a blackholed
// PowerDNS kept diff for 181 s, three tries of 60 s).
func TestSilentServerGivesUpWithinTheRequestTimeout(t *testing.T) {
	srv := pdnstest.Shared(t)
	silent := pdnstest.StartSilent(t)
	url, conns := silent.URL, &silent.Conns
	d, run := testDriver(), newRun(srv)
	run.RequestTimeout = 300 * time.Millisecond
	step := func(zone string) *graph.Step {
		s := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
		s.Zone.Provider = model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: url, Server: srv.ServerID, APIKey: model.Credential{Env: keyEnv}}}
		return s
	}
	_, err := d.Plan(context.Background(), step("silent1.test."), run)
	var na *backends.NoAnswerError
	if !errors.As(err, &na) || na.Earlier {
		t.Fatalf("Plan: got %v, want a *NoAnswerError", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("the server saw %d tries, want 1: the first used the whole request timeout", got)
	}
	for _, want := range []string{"PowerDNS pdns (" + url + ")", "GET zones/silent1.test.", "within 300ms", "--request-timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = d.Plan(context.Background(), step("silent2.test."), run)
	if !errors.As(err, &na) || !na.Earlier || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("second Plan: got %v, want it refused at once, naming the earlier request", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("the server saw %d tries in all, want the first zone's one", got)
	}
}
