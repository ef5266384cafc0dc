package cloudflare

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// A read answered HTTP 200 with "success": false failed: cloudflare-go
// v0 returns no error for any 2xx (Raw, ListZonesContext and
// ListDNSRecords alike decode the envelope and drop or leave Success),
// so read as data such an answer is an empty zone list, an empty zone,
// no SOA, no DNSSEC. The fake, faithful to the documentation, refuses
// with a 4xx; refusingReads answers chosen reads with status 200 and
// Cloudflare's failure envelope (API schema api-response-common-failure:
// "success": false, at least one error, result null).

// refusedRead is the failure envelope the tests answer with. Its
// message holds an escape character, which must reach the user escaped.
const refusedRead = `{"success":false,"errors":[{"code":7003,"message":"Could not route to /zones/x,\u001b[31m perhaps your object identifier is invalid?"}],"messages":[],"result":null}`

// refusingReads puts a proxy in front of the fake that answers the GETs
// refuse picks with status 200 and refusedRead, and relays everything
// else. It returns the proxy's URL, as an api_url, and the count of
// the reads it refused.
func refusingReads(t *testing.T, f *fixture, refuse func(*http.Request) bool) (string, *atomic.Int64) {
	t.Helper()
	target, err := url.Parse(f.fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	origin := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	refused := new(atomic.Int64)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && refuse(r) {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(refusedRead))
			return
		}
		origin.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + target.Path, refused
}

// pathEnds picks the GETs whose path ends with suffix.
func pathEnds(suffix string) func(*http.Request) bool {
	return func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, suffix) }
}

// checkRefusedRead asserts err is the failed read, saying Cloudflare's
// code and its message escaped, and that it was asked once.
func checkRefusedRead(t *testing.T, err error, refused *atomic.Int64) {
	t.Helper()
	if err == nil {
		t.Fatal("no error, want the read answered \"success\": false to fail")
	}
	msg := err.Error()
	for _, want := range []string{`"success": false`, `invalid? (7003)`, `x,\x1b[31m perhaps`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\x1b") {
		t.Errorf("error %q carries the server's escape character unescaped", msg)
	}
	if n := refused.Load(); n != 1 {
		t.Errorf("the refused read was sent %d times, want once (a refusal is not worth a retry)", n)
	}
}

// TestObservationReadRefusedInA200: each read of the observation a diff
// plans from, answered 200 with "success": false, fails the plan with
// Cloudflare's code instead of planning to create what the zone holds,
// and nothing is written.
func TestObservationReadRefusedInA200(t *testing.T) {
	tests := []struct {
		name   string
		refuse func(*http.Request) bool
		zone   func(*model.Zone)
	}{
		{"zone lookup", pathEnds("/zones"), nil},
		{"record listing", pathEnds("/dns_records"), nil},
		{"SOA settings", pathEnds("/dns_settings"), func(z *model.Zone) {
			refresh := uint32(7200)
			z.SOA = &model.SOA{Mbox: "hostmaster.sjc.example.net.", Refresh: &refresh}
		}},
		{"DNSSEC status", pathEnds("/dnssec"), func(z *model.Zone) { z.DNSSEC = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.add(t, cftest.Record{Name: "www." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")})
			step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"), rr("ftp."+zoneName, "A", 300, "192.0.2.2"))
			if tc.zone != nil {
				tc.zone(step.Zone)
			}
			var refused *atomic.Int64
			step.Zone.Provider.Cloudflare.APIURL, refused = refusingReads(t, f, tc.refuse)
			f.fake.ResetCounts()
			sp, err := f.drv.Plan(context.Background(), step, f.run)
			if err == nil {
				t.Fatalf("Plan succeeded with changes %v, want the refused read to fail it", summary(sp.Changes))
			}
			checkRefusedRead(t, err, refused)
			if strings.Contains(err.Error(), "has no zone") {
				t.Errorf("error %q says the zone is missing; Cloudflare refused the read", err)
			}
			for _, ep := range []string{cftest.EpBatch, cftest.EpCreate, cftest.EpPatch, cftest.EpDelete, cftest.EpSettingsPatch} {
				if n := f.fake.Count(ep); n != 0 {
					t.Errorf("%d %s requests, want none", n, ep)
				}
			}
		})
	}
}

// TestVerifyReadRefusedInA200: the read back after apply answered 200
// with "success": false is a read that failed, not a zone missing the
// records just written.
func TestVerifyReadRefusedInA200(t *testing.T) {
	f := newFixture(t)
	var written atomic.Bool
	step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	var refused *atomic.Int64
	step.Zone.Provider.Cloudflare.APIURL, refused = refusingReads(t, f, func(r *http.Request) bool {
		return written.Load() && strings.HasSuffix(r.URL.Path, "/dns_records")
	})
	sp := f.plan(t, step)
	written.Store(true) // the plan's reads are done; the next listing is the check
	res := f.apply(t, sp)
	problems := strings.Join(res.Problems, "\n")
	checkRefusedRead(t, errString(problems), refused)
	if !strings.Contains(problems, "could not be read back to verify") {
		t.Errorf("problems %q do not say the zone could not be read back", problems)
	}
	if f.fake.Count(cftest.EpBatch) != 1 {
		t.Errorf("%d batches, want the one planned", f.fake.Count(cftest.EpBatch))
	}
}

// TestLeftoversReadRefusedInA200: site leftovers' zone list and record
// listing answered 200 with "success": false fail, rather than showing
// an account without zones or a zone without marks.
func TestLeftoversReadRefusedInA200(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(*fixture, model.Provider) error
	}{
		{"zone list", func(f *fixture, p model.Provider) error {
			_, err := f.drv.ListZones(context.Background(), p, f.run)
			return err
		}},
		{"zone marks", func(f *fixture, p model.Provider) error {
			_, err := f.drv.ZoneMarks(context.Background(), p, backends.ListedZone{Name: zoneName, ID: f.zoneID}, f.run)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.add(t, cftest.Record{Name: "www." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("gone")})
			url, refused := refusingReads(t, f, func(*http.Request) bool { return true })
			p := model.Provider{Name: "cf", Cloudflare: &model.Cloudflare{Token: model.Credential{Env: "CLOUDFLARE_API_TOKEN"}, APIURL: url}}
			checkRefusedRead(t, tc.read(f, p), refused)
		})
	}
}

// errString is a problem line as an error, for checkRefusedRead; an
// empty line is no error.
func errString(s string) error {
	if s == "" {
		return nil
	}
	return stringError(s)
}

type stringError string

func (e stringError) Error() string { return string(e) }

// TestBatchRefusalIn200IsEscaped: a batch refused in a 200 quotes
// Cloudflare's message escaped, as the reads do: server text never
// reaches the terminal raw.
func TestBatchRefusalIn200IsEscaped(t *testing.T) {
	f := newFixture(t)
	front := frontOfFake(t, f, func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(refusedRead))
	})
	target, _ := url.Parse(f.fake.URL)
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	_, err := f.drv.Apply(context.Background(), f.plan(t, step), f.run)
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `x,\x1b[31m perhaps`) {
		t.Errorf("Apply: %v; want the refusal with Cloudflare's message escaped", err)
	}
}
