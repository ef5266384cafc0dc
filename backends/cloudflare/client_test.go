package cloudflare

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
)

// TestClassify sends requests through the real client and transport to
// a server answering each status and body, so the classes are those of
// the errors the client really returns.
func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		method string
		status int
		body   string
		want   backends.Class
		tries  int64
	}{
		{"403 code 10000", http.MethodGet, 403, `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}`, backends.ClassAuth, 1},
		{"401", http.MethodGet, 401, `{"success":false,"errors":[{"code":1000,"message":"Invalid API Token"}]}`, backends.ClassAuth, 1},
		{"400 code 9106", http.MethodGet, 400, `{"success":false,"errors":[{"code":9106,"message":"Authentication failed"}]}`, backends.ClassAuth, 1},
		{"81053", http.MethodPost, 400, `{"success":false,"errors":[{"code":81053,"message":"An A, AAAA, or CNAME record with that host already exists."}]}`, backends.ClassConflict, 1},
		{"81054", http.MethodPost, 400, `{"success":false,"errors":[{"code":81054,"message":"A CNAME record with that host already exists."}]}`, backends.ClassConflict, 1},
		{"81057", http.MethodPost, 400, `{"success":false,"errors":[{"code":81057,"message":"Record already exists."}]}`, backends.ClassConflict, 1},
		{"81058", http.MethodPost, 400, `{"success":false,"errors":[{"code":81058,"message":"An identical record already exists."}]}`, backends.ClassConflict, 1},
		{"404 record", http.MethodPost, 404, `{"success":false,"errors":[{"code":81044,"message":"Record does not exist."}]}`, backends.ClassConflict, 1},
		{"validation", http.MethodPost, 400, `{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}]}`, backends.ClassInvalid, 1},
		{"500 on GET is retried", http.MethodGet, 500, `{}`, backends.ClassTransient, 3},
		{"502 on POST is not retried", http.MethodPost, 502, `{}`, backends.ClassTransient, 1},
		{"429 is retried for every method", http.MethodPost, 429, `{}`, backends.ClassTransient, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			d := &Driver{RPS: 1e6, Retries: 2, MaxWait: time.Millisecond}
			api, err := d.newAPI(srv.URL, "tok", nil, nil, "cf", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = api.Raw(context.Background(), tt.method, "/zones/z/dns_records/batch", map[string]any{}, nil)
			if err == nil {
				t.Fatal("got no error")
			}
			if got := Classify(err); got != tt.want {
				t.Errorf("got class %s, want %s (error: %v)", got, tt.want, err)
			}
			if got := hits.Load(); got != tt.tries {
				t.Errorf("got %d requests, want %d", got, tt.tries)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"7", 7 * time.Second},
		{"0", 0},
		{"", 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := retryAfter(tt.in); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRetryAfterHonoured checks that the transport waits what a 429's
// Retry-After asks (capped by MaxWait) before it tries again.
func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		maxWait time.Duration
		want    time.Duration
	}{
		{"as asked", "7", time.Minute, 7 * time.Second},
		{"capped", "20", 10 * time.Second, 10 * time.Second},
		// A wait longer than the request timeout (30 s by default) is
		// not waited for: the try fails at once.
		{"longer than the request timeout", "600", time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", tt.header)
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":{}}`))
			}))
			defer srv.Close()
			var waits []time.Duration
			rt := &retrying{next: http.DefaultTransport, attempts: 3, maxWait: tt.maxWait,
				sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
			resp, err := rt.RoundTrip(req)
			if tt.want == 0 {
				if err == nil || !strings.Contains(err.Error(), "longer than the request timeout") || len(waits) != 0 || hits.Load() != 1 {
					t.Errorf("got %v after waits %v and %d requests, want one try refused as too long a wait", err, waits, hits.Load())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(waits) != 1 || waits[0] != tt.want {
				t.Errorf("got waits %v, want [%s]", waits, tt.want)
			}
		})
	}
}

// TestLimiterSharedPerToken: every zone of one token shares one request
// budget, as Cloudflare counts it.
func TestLimiterSharedPerToken(t *testing.T) {
	d := &Driver{RPS: 4}
	a, b := d.limiter("https://api", "tok1"), d.limiter("https://api", "tok1")
	if a != b {
		t.Error("two clients of one token got different limiters")
	}
	if d.limiter("https://api", "tok2") == a || d.limiter("http://test", "tok1") == a {
		t.Error("another token or API URL shares the limiter")
	}
	if got := a.Limit(); got != 4 {
		t.Errorf("got %v requests per second, want 4", got)
	}
	for k := range d.limiters {
		if strings.Contains(k, "tok1") {
			t.Errorf("limiter key %q holds the token", k)
		}
	}
}

// TestClassifyCutBody: an answer whose body ends before its
// Content-Length (the connection broke) is a temporary failure, and the
// message does not say Cloudflare refused the request (found by the
// fault suite, cmd/site/faults_cloudflare_test.go).
func TestClassifyCutBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte(`{"success":true,"res`))
	}))
	defer srv.Close()
	d := &Driver{RPS: 1e6, Retries: 2, MaxWait: time.Millisecond}
	api, err := d.newAPI(srv.URL, "tok", nil, nil, "cf", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.Raw(context.Background(), http.MethodGet, "/zones/z/dns_records", nil, nil)
	if err == nil {
		t.Fatal("got no error")
	}
	if got := Classify(err); got != backends.ClassTransient {
		t.Errorf("got class %s, want %s (error: %v)", got, backends.ClassTransient, err)
	}
	if msg := describe("listing records", needDNSEdit("example.com."), err).Error(); strings.Contains(msg, "refused") || !strings.Contains(msg, "re-run") {
		t.Errorf("got %q, want a temporary failure to re-run, not a refusal", msg)
	}
}
