package dnsfaults

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// lostAnswer: a write whose request reached the server in full and
// whose answer was then lost or unreadable may have been applied, and
// the error says so instead of "changed nothing"; a write the server
// refused, or that never left site, did change nothing, and the error
// says that. (Was TestLostAnswerMayHaveApplied in cloudflare and
// TestLostAnswerOfAPatch in powerdns, whose "502 after PowerDNS applied
// it" and "429 from the server" are rows here.)
func lostAnswer(t *testing.T, p Provider) {
	for _, tt := range lostAnswers(p) {
		t.Run(tt.name, func(t *testing.T) { loseAnswer(t, p, tt) })
	}
}

// lostCase is one way a write's answer goes astray.
type lostCase struct {
	name    string
	write   func(w http.ResponseWriter, r *http.Request, origin http.Handler)
	down    bool // the proxy is gone before the write: nothing is sent
	applied bool // the server acted on the write
	ok2xx   bool // its answer is a 2xx: Provider.EmptyWriteAnswer
	status  int  // the status of a refusal, for RefusedSays
}

// lostAnswers are lostAnswer's rows.
func lostAnswers(p Provider) []lostCase {
	return []lostCase{
		{name: "answer cut mid-body", applied: true, ok2xx: true, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			body := acted(r, origin).Body.Bytes()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body[:len(body)/2]) // the connection ends short of Content-Length
		}},
		{name: "200 whose body is not JSON", applied: true, ok2xx: true, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>welcome to the proxy</body></html>"))
		}},
		{name: "502 from a proxy after the server acted", applied: true, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
		}},
		{name: "connection closed after the server acted", applied: true, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			acted(r, origin)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
		{name: "refused by the server", status: p.Refusal.Status, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			p.Refusal.write(w)
		}},
		{name: "refused by a proxy in HTML", status: http.StatusRequestEntityTooLarge, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write([]byte("<html><body>413 Request Entity Too Large</body></html>"))
		}},
		{name: "rate limited every try", status: http.StatusTooManyRequests, write: func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			// Cloudflare's refusal, and PowerDNS's "error" beside it.
			_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10429,"message":"Rate limited. Please wait and consider throttling your request speed"}],"messages":[],"result":null,"error":"slow down"}`))
		}},
		{name: "proxy gone before the write", down: true},
	}
}

// loseAnswer runs one lostAnswer row.
func loseAnswer(t *testing.T, p Provider, tt lostCase) {
	z := p.NewZone(t)
	api, srv := front(t, z.API(), func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		if p.IsWrite(r) {
			tt.write(w, r, origin)
			return
		}
		origin.ServeHTTP(w, r)
	})
	www := "www." + z.Name()
	sp, err := z.Plan(context.Background(), api, rr(www, "A", 300, "203.0.113.10"))
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if tt.down {
		srv.Close()
	}
	res, err := z.Apply(context.Background(), sp)
	if tt.ok2xx && p.EmptyWriteAnswer {
		if err != nil || z.Served(t, www, "A") != 1 {
			t.Fatalf("got %v, want the write applied and said so: a 2xx is all the API answers a write that worked", err)
		}
		return
	}
	if !p.WriteError(err, !tt.down) {
		t.Fatalf("got %v, want the write's own error", err)
	}
	if got := z.Served(t, www, "A"); (got == 1) != tt.applied {
		t.Fatalf("the server holds %d values at %s: the case does not do what it says", got, www)
	}
	msg := err.Error()
	if tt.applied {
		for _, want := range append([]string{p.MayHave}, p.LostSays...) {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		}
		for _, wrong := range p.LostNotSays {
			if strings.Contains(msg, wrong) {
				t.Errorf("error %q says %q, but the server had the write and may have applied it", msg, wrong)
			}
		}
		if res != nil && strings.Contains(strings.Join(res.Notes, "\n"), "sent 0 operations") {
			t.Errorf("notes %q say nothing was sent, but the write was", res.Notes)
		}
		return
	}
	said := p.GoneSays
	if !tt.down {
		said = p.RefusedSays(tt.status)
	}
	if !strings.Contains(msg, said) {
		t.Errorf("error %q does not say %q", msg, said)
	}
	if strings.Contains(msg, p.MayHave) {
		t.Errorf("error %q says the write may have applied, but the server did not act on it", msg)
	}
}
