package cloudflare

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
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

// TestLostAnswerMayHaveApplied: a batch whose request reached
// Cloudflare in full and whose answer was then lost or unreadable may
// have been applied, and the error says so instead of "changed
// nothing"; a batch Cloudflare refused, or that never left site, did
// change nothing, and the error says that.
func TestLostAnswerMayHaveApplied(t *testing.T) {
	tests := []struct {
		name    string
		batch   func(w http.ResponseWriter, r *http.Request, origin http.Handler)
		down    bool   // the proxy is gone before the batch: nothing is sent
		applied bool   // the fake acted on the batch
		said    string // what the error says of a batch not applied
	}{
		{name: "answer cut mid-body", applied: true, batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			body := acted(r, origin).Body.Bytes()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body[:len(body)/2]) // the connection ends short of Content-Length
		}},
		{name: "200 whose body is not JSON", applied: true, batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>welcome to the proxy</body></html>"))
		}},
		{name: "502 from a proxy after the origin acted", applied: true, batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
		}},
		{name: "connection closed after the origin acted", applied: true, batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
		{name: "refused by Cloudflare", said: "was refused (HTTP 400) and changed nothing", batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}],"messages":[],"result":null}`))
		}},
		{name: "refused by a proxy in HTML", said: "was refused (HTTP 413) and changed nothing", batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write([]byte("<html><body>413 Request Entity Too Large</body></html>"))
		}},
		{name: "rate limited every try", said: "was refused (HTTP 429) and changed nothing", batch: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10429,"message":"Rate limited. Please wait and consider throttling your request speed"}],"messages":[],"result":null}`))
		}},
		{name: "proxy gone before the batch", down: true, said: "failed before Cloudflare had all of it, so it changed nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			front := frontOfFake(t, f, tt.batch)
			target, _ := url.Parse(f.fake.URL)
			step := f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"))
			step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
			sp := f.plan(t, step)
			if tt.down {
				front.Close()
			}
			res, err := f.drv.Apply(context.Background(), sp, f.run)
			var be *BatchError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a *BatchError", err)
			}
			if got := len(f.fake.Records(f.zoneID)); got != map[bool]int{true: 1, false: 0}[tt.applied] {
				t.Fatalf("the fake holds %d records: the case does not do what it says", got)
			}
			msg := err.Error()
			notes := ""
			if res != nil {
				notes = strings.Join(res.Notes, "\n")
			}
			if tt.applied {
				for _, want := range []string{"so it may have", "site diff"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
				for _, wrong := range []string{"changed nothing", "refused"} {
					if strings.Contains(msg, wrong) {
						t.Errorf("error %q says %q, but Cloudflare had the batch and may have applied it", msg, wrong)
					}
				}
				if strings.Contains(notes, "sent 0 operations") {
					t.Errorf("notes %q say nothing was sent, but the batch was", notes)
				}
				return
			}
			if !strings.Contains(msg, tt.said) {
				t.Errorf("error %q does not say %q", msg, tt.said)
			}
			if strings.Contains(msg, "so it may have") {
				t.Errorf("error %q says the batch may have applied, but Cloudflare did not act on it", msg)
			}
		})
	}
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
