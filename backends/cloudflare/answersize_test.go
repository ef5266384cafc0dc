package cloudflare

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
)

// TestHugeAnswerIsCut: a proxy (or an api_url that names something
// else than the API) that answers one request without end is read no
// further than the driver's bound: the zone lookup, a page of records,
// a batch's answer. The request fails once, with an error naming the
// provider, the URL asked, the bound and what to check, never the token.
func TestHugeAnswerIsCut(t *testing.T) {
	const streamCap = 64 << 20
	tests := []struct {
		name    string
		endless func(*http.Request) bool
		apply   bool // the request comes in Apply, after a plan
	}{
		{"zone lookup", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/zones") }, false},
		{"record list", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/dns_records") }, false},
		{"batch answer", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/dns_records/batch") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.drv.MaxAnswerBytes = 1 << 20
			var asked, written atomic.Int64
			target, err := url.Parse(f.fake.URL)
			if err != nil {
				t.Fatal(err)
			}
			proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tt.endless(r) {
					proxy.ServeHTTP(w, r)
					return
				}
				asked.Add(1)
				w.Header().Set("Content-Type", "application/json")
				record := []byte(`{"id":"r1","type":"A","name":"www.` + strings.TrimSuffix(zoneName, ".") + `","content":"192.0.2.1","ttl":300},`)
				n, _ := w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":[`))
				written.Add(int64(n))
				for written.Load() < streamCap {
					n, err := w.Write(record)
					written.Add(int64(n))
					if err != nil {
						return
					}
				}
			}))
			defer front.Close()

			step := f.step(rr("keys."+zoneName, "A", 300, "203.0.113.10"))
			step.Zone.Provider.Name = "cf"
			step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
			sp, err := f.drv.Plan(context.Background(), step, f.run)
			if tt.apply {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				_, err = f.drv.Apply(context.Background(), sp, f.run)
			}
			front.CloseClientConnections()
			var tooLarge *backends.AnswerTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("got %v, want the answer cut at the bound", err)
			}
			for _, want := range []string{"Cloudflare provider cf answered ", front.URL + target.Path, "more than 1 MiB", "api_url", "site.cue", "proxy"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			for _, wrong := range []string{"Cloudflare refused the request", "changed nothing"} {
				if strings.Contains(err.Error(), wrong) {
					t.Errorf("error %q says %q: Cloudflare answered, and a batch may have been applied", err, wrong)
				}
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error %q holds the token", err)
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("the request was sent %d times, want once", n)
			}
			if n := written.Load(); n >= streamCap {
				t.Errorf("site took all %d MiB the server wrote, want it to stop at the bound", n>>20)
			}
		})
	}
}

// TestMaxAnswerFollowsThePage: the bound grows with the records a page
// or a batch's answer may hold, at maxRecordJSON each, in whole MiB.
func TestMaxAnswerFollowsThePage(t *testing.T) {
	tests := []struct {
		name string
		drv  *Driver
		want int64
	}{
		{"default page of 5,000", &Driver{}, 158 << 20},
		{"a small page: a batch's answer is larger", &Driver{PerPage: 100}, 111 << 20},
		{"a page of 50,000", &Driver{PerPage: 50000}, 1564 << 20},
		{"set", &Driver{MaxAnswerBytes: 1 << 20}, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.drv.maxAnswer(); got != tt.want {
				t.Errorf("maxAnswer() = %d MiB (%d), want %d MiB", got>>20, got, tt.want>>20)
			}
		})
	}
}
