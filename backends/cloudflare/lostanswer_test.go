package cloudflare

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// frontOfFake is a proxy in front of f's fake, as a corporate proxy or
// Cloudflare's edge stands in front of the API: every read goes through
// untouched; a write (a batch, a settings PATCH) goes to write, which
// gets the fake (origin) to forward it to when it wants the fake to act
// on it. The driver's next plans and applies go through the proxy.
func frontOfFake(t *testing.T, f *fixture, write func(w http.ResponseWriter, r *http.Request, origin http.Handler)) *httptest.Server {
	t.Helper()
	target, err := url.Parse(f.fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	origin := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			write(w, r, origin)
			return
		}
		origin.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front
}

// acted forwards r to origin and returns its answer, unsent: the
// origin has acted on the request, and the proxy decides what the
// client hears of it.
func acted(r *http.Request, origin http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	origin.ServeHTTP(rec, r)
	return rec
}

// TestLostAnswerOfALaterBatch: when a later batch's answer is lost,
// the step reports the earlier batches applied and the lost one as
// perhaps applied, not as a part that failed having changed nothing.
func TestLostAnswerOfALaterBatch(t *testing.T) {
	f := newFixture(t)
	f.drv.ChunkSize = 1
	n := 0
	front := frontOfFake(t, f, func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		n++
		rec := acted(r, origin)
		if n == 2 {
			w.WriteHeader(http.StatusGatewayTimeout)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	target, _ := url.Parse(f.fake.URL)
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"), rr("b."+zoneName, "A", 300, "192.0.2.2"), rr("c."+zoneName, "A", 300, "192.0.2.3"))
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	sp := f.plan(t, step)
	_, err := f.drv.Apply(context.Background(), sp, f.run)
	var pe *backends.PartialError
	if !errors.As(err, &pe) || pe.Applied != 1 || pe.Total != 3 {
		t.Fatalf("got %v, want a *backends.PartialError of 1 of 3 batches", err)
	}
	if got := len(f.fake.Records(f.zoneID)); got != 2 {
		t.Fatalf("the fake holds %d records, want 2 (batch 2 acted on behind the 504)", got)
	}
	msg := err.Error()
	if !strings.Contains(msg, "batch 2 of 3") || !strings.Contains(msg, "so it may have") || strings.Contains(msg, "changed nothing") {
		t.Errorf("error %q: want batch 2 of 3 said to have perhaps applied, not to have changed nothing", msg)
	}
}

// TestLostAnswerOfTheSOAWrite: the SOA settings PATCH, sent after the
// records, whose answer is a 200 that is not JSON may have been
// applied: its error does not say Cloudflare refused it.
func TestLostAnswerOfTheSOAWrite(t *testing.T) {
	f := newFixture(t)
	front := frontOfFake(t, f, func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		if r.Method != http.MethodPatch {
			origin.ServeHTTP(w, r)
			return
		}
		acted(r, origin)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>welcome to the proxy</body></html>"))
	})
	target, _ := url.Parse(f.fake.URL)
	refresh := uint32(7200)
	step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.SOA = &model.SOA{Mbox: "hostmaster.sjc.example.net.", Refresh: &refresh}
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	_, err := f.drv.Apply(context.Background(), f.plan(t, step), f.run)
	if err == nil {
		t.Fatal("Apply succeeded, want the SOA write to fail")
	}
	if got := f.fake.ZoneSOA(f.zoneID).Refresh; got != 7200 {
		t.Fatalf("the fake's SOA refresh is %d, want 7200 (the case does not do what it says)", got)
	}
	msg := err.Error()
	if strings.Contains(msg, "refused") || !strings.Contains(msg, "may have") || !strings.Contains(msg, "site diff") {
		t.Errorf("error %q: want it to say Cloudflare may have applied the SOA settings and to run site diff, not that it refused them", msg)
	}
}
