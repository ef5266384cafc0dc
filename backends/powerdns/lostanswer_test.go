package powerdns

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// TestLostAnswerOfAZoneCreate: the POST that creates a zone reaches
// PowerDNS, which creates it, and a proxy then answers 502. The retry
// finds the zone there (409). The error must not read as the server
// refusing the change, since the zone and its records were written by
// the first try: it says the create may have been applied, and to look.
func TestLostAnswerOfAZoneCreate(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "lostcreate.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	front, posts := losingProxy(t, srv, 1, func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/zones")
	})

	d, run := testDriver(), newRun(srv)
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
	step.Zone.Provider.PowerDNS = &model.PowerDNS{URL: front, Server: srv.ServerID, APIKey: step.Zone.Provider.PowerDNS.APIKey}
	sp := mustPlan(t, d, step, run)
	_, err := d.Apply(context.Background(), sp, run)
	if err == nil {
		t.Fatal("Apply succeeded, want the lost answer said")
	}
	if posts.Load() < 2 {
		t.Fatalf("the create was sent %d times: the case needs the retry to find the zone there", posts.Load())
	}
	if got := srv.Query(t, "www."+zone, "A"); len(got) != 1 {
		t.Fatalf("www: got %q, want the first try's record served (the case does not do what it says)", got)
	}
	msg := err.Error()
	if strings.Contains(msg, "refuses this change") || !strings.Contains(msg, "may have") || !strings.Contains(msg, "site diff") {
		t.Errorf("error %q: want it to say the first try may have created the zone and to run site diff, not that the zone refuses the change", msg)
	}
}

// TestLostAnswerOfAKeyIsNotAddedAgain: adding a zone's signing key is
// no "ensure": a POST repeated adds a second key. When the first POST
// reached PowerDNS and its answer was lost (a proxy's 502), site does
// not send it again, and says the key may have been added.
func TestLostAnswerOfAKeyIsNotAddedAgain(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "lostkey.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	front, posts := losingProxy(t, srv, 1, func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/cryptokeys")
	})

	d, run := testDriver(), newRun(srv)
	step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
	step.Zone.DNSSEC = true
	step.Zone.Provider.PowerDNS = &model.PowerDNS{URL: front, Server: srv.ServerID, APIKey: step.Zone.Provider.PowerDNS.APIKey}
	sp := mustPlan(t, d, step, run)
	_, err := d.Apply(context.Background(), sp, run)
	direct := zoneStep(srv, "office1", zone)
	if keys := liveKeys(t, d, direct, srv); len(keys) != 1 {
		t.Errorf("the zone has %d keys after %d POSTs, want the one the first POST added", len(keys), posts.Load())
	}
	if err == nil || !strings.Contains(err.Error(), "may have") || !strings.Contains(err.Error(), "site diff") {
		t.Errorf("Apply: got %v, want it to say the key may have been added and to run site diff", err)
	}
}

// losingProxy is a proxy in front of srv that passes every request on,
// but loses PowerDNS's answer to the first lose requests that match
// (all of them when lose < 0): PowerDNS acts on each, and the proxy
// answers 502 with a proxy's page instead. It returns the proxy's URL
// and the count of matching requests.
func losingProxy(t *testing.T, srv *pdnstest.Server, lose int, match func(*http.Request) bool) (string, *atomic.Int32) {
	t.Helper()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	origin := httputil.NewSingleHostReverseProxy(target)
	var matched atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			origin.ServeHTTP(w, r)
			return
		}
		if n := matched.Add(1); lose >= 0 && int(n) > lose {
			origin.ServeHTTP(w, r)
			return
		}
		origin.ServeHTTP(httptest.NewRecorder(), r) // PowerDNS acts ...
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway) // ... and the proxy loses its answer
		_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
	}))
	t.Cleanup(front.Close)
	return front.URL, &matched
}
