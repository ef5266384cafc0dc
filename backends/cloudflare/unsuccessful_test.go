package cloudflare

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/model"
)

// An answer of HTTP 200 whose envelope says "success": false is a
// refusal, not a batch applied. cloudflare-go v0's Raw returns no error
// for any 2xx (it decodes the envelope and leaves Success to the
// caller), so site reads Success itself. The fake, faithful to the
// documentation, answers a refusal with a 4xx; a proxy in front of it
// (frontOfFake) relays the answer with status 200.

// in200 relays the fake's answer to a write with status 200, whatever
// the fake said.
func in200(w http.ResponseWriter, r *http.Request, origin http.Handler) {
	rec := acted(r, origin)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(rec.Body.Bytes())
}

// TestBatchRefusedInA200IsReplanned: the fake refuses a batch as the
// documentation says Cloudflare does (its second post meets an
// identical record, 81058, so its first is not applied either), in a
// 200. The driver takes that for what it is, a stale observation: the
// step's notes say the batch was refused and changed nothing, and the
// driver observes again and re-plans, so the zone ends as the spec
// wants. Read as a success, the first record was never created and the
// step said it was sent.
func TestBatchRefusedInA200IsReplanned(t *testing.T) {
	f := newFixture(t)
	front := frontOfFake(t, f, in200)
	target, _ := url.Parse(f.fake.URL)
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"), rr("b."+zoneName, "A", 300, "192.0.2.2"))
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	sp := f.plan(t, step)
	if _, err := f.fake.AddRecord(f.zoneID, cftest.Record{Name: "b." + strings.TrimSuffix(zoneName, "."), Type: "A", Content: "192.0.2.2", TTL: 300}); err != nil {
		t.Fatal(err)
	}
	res, err := f.drv.Apply(context.Background(), sp, f.run)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{`batch 1 of 1 was refused (HTTP 200, "success": false) and changed nothing`, "(81058)", "observed it again and re-planned"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %q", notes, want)
		}
	}
	if got := len(f.fake.Records(f.zoneID)); got != 2 || f.fake.Count("batch") != 2 {
		t.Errorf("the fake holds %d records after %d batches, want 2 after 2 (the refused one, then the re-planned one)", got, f.fake.Count("batch"))
	}
}

// TestBatchRefusedInA200ChangedNothing: a 200 with "success": false and
// a code that is no stale observation fails the step with a
// *BatchError that says the batch changed nothing, with Cloudflare's
// code, not that it was sent or may have applied.
func TestBatchRefusedInA200ChangedNothing(t *testing.T) {
	f := newFixture(t)
	front := frontOfFake(t, f, func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}],"messages":[],"result":null}`))
	})
	target, _ := url.Parse(f.fake.URL)
	step := f.step(rr("a."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	sp := f.plan(t, step)
	res, err := f.drv.Apply(context.Background(), sp, f.run)
	var be *BatchError
	if !errors.As(err, &be) {
		t.Fatalf("Apply of a batch answered 200 with \"success\": false: got %v, want a *BatchError", err)
	}
	msg := err.Error()
	for _, want := range []string{`was refused (HTTP 200, "success": false) and changed nothing`, "DNS Validation Error (1004)", "Cloudflare refused the request"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "may have") {
		t.Errorf("error %q says the batch may have applied, but Cloudflare said it did not", msg)
	}
	if res == nil || !strings.Contains(strings.Join(res.Notes, "\n"), "sent 0 operations") {
		t.Errorf("result %+v: want a note that counts the refused batch as not sent", res)
	}
}

// TestSOAWriteRefusedInA200: the SOA settings PATCH answered 200 with
// "success": false failed: the step fails with Cloudflare's code and
// says Cloudflare refused it, rather than noting the settings updated.
func TestSOAWriteRefusedInA200(t *testing.T) {
	f := newFixture(t)
	front := frontOfFake(t, f, func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
		if r.Method != http.MethodPatch {
			origin.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}],"messages":[],"result":null}`))
	})
	target, _ := url.Parse(f.fake.URL)
	refresh := uint32(7200)
	step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.SOA = &model.SOA{Mbox: "hostmaster.sjc.example.net.", Refresh: &refresh}
	step.Zone.Provider.Cloudflare.APIURL = front.URL + target.Path
	res, err := f.drv.Apply(context.Background(), f.plan(t, step), f.run)
	if err == nil {
		t.Fatalf("Apply succeeded (notes %q), want the SOA write answered \"success\": false to fail", res.Notes)
	}
	msg := err.Error()
	if !strings.Contains(msg, "DNS Validation Error (1004)") || !strings.Contains(msg, "Cloudflare refused the request") || strings.Contains(msg, "may have") {
		t.Errorf("error %q: want Cloudflare's code and that it refused the SOA settings", msg)
	}
}
