package powerdns

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestCreateOverHiddenDataIsGated: a record the server serves from a
// second backend, which the API does not list, is foreign data at a
// wanted name: the plan says what is served there and needs
// GATE-DNS-OVERWRITE, where it planned a plain create (issue 27). What
// nothing serves, a listed wildcard's answer, and a zone whose dns is
// off stay plain creates.
func TestCreateOverHiddenDataIsGated(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{Second: true})
	const zone = "hidden.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "*.wild." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.9"}})
	srv.HideRecord(t, zone, "secret."+zone, "A", 300, "192.0.2.66")
	srv.HideRecord(t, zone, "alias."+zone, "CNAME", 300, "elsewhere.test.")

	gated := "update dns/" + zone + "/%s overwrite GATE-DNS-OVERWRITE"
	plain := "create dns/" + zone + "/%s live"
	cases := []struct {
		name   string
		want   *model.RRset
		change string
		off    bool
	}{
		{"hidden A at the name", rr("secret."+zone, "A", 300, "192.0.2.7"), gated, false},
		{"hidden CNAME where an A is wanted", rr("alias."+zone, "A", 300, "192.0.2.8"), gated, false},
		{"nothing served", rr("fresh."+zone, "A", 300, "192.0.2.7"), plain, false},
		{"a listed wildcard answers", rr("x.wild."+zone, "A", 300, "192.0.2.9"), plain, false},
		{"dns off asks nothing", rr("secret."+zone, "A", 300, "192.0.2.7"), plain, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, run := testDriver(), newRun(srv)
			if c.off {
				d.VerifyAddr = func(*model.Zone, *backends.Run) string { return "" }
			}
			sp := mustPlan(t, d, zoneStep(srv, "office1", zone, c.want), run)
			want := fmt.Sprintf(c.change, c.want.Name+"/"+c.want.Type)
			got := summary(sp.Changes)
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %q, want [%q]", got, want)
			}
			if strings.HasPrefix(c.change, "update") {
				ch := sp.Changes[0]
				if !strings.Contains(ch.Reason, "its API does not list") || ch.Before == nil {
					t.Errorf("reason %q, before %v: want what the server serves and that the API does not list it", ch.Reason, ch.Before)
				}
			}
		})
	}
}

// manyNew is a zone step of n new A rrsets, and the plan's batch for
// it against an existing empty zone on srv.
func manyNew(t testing.TB, srv *pdnstest.Server, zone string, n int) (*graph.Step, *batch, *backends.Run) {
	srv.CreateZone(t, zone)
	want := make([]*model.RRset, n)
	for i := range want {
		want[i] = rr(fmt.Sprintf("n%d.%s", i, zone), "A", 300, "192.0.2.1")
	}
	d, run := testDriver(), newRun(srv)
	step := zoneStep(srv, "office1", zone, want...)
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	return step, batchOf(t, sp), run
}

// TestHiddenCheckAsksOncePerCreate: the check costs one DNS question
// per created rrset, whatever the zone's size, and finds nothing where
// nothing is served.
func TestHiddenCheckAsksOncePerCreate(t *testing.T) {
	srv := pdnstest.Shared(t)
	step, b, run := manyNew(t, srv, "hiddencount.test.", 300)
	notes, queries := hidden(context.Background(), run, srv.DNSAddr, step.Zone, &observation{Observed: dnsplan.NewObserved(0)}, b)
	if len(notes) != 0 || queries != 300 {
		t.Errorf("got %d queries and notes %q, want 300 queries, one per created rrset", queries, notes)
	}
	for _, c := range b.changes {
		if len(c.Gates) > 0 {
			t.Errorf("%s: gated %v, want a plain create", c.Key, c.Gates)
		}
	}
}

// BenchmarkHiddenCheck measures the check for a zone of 1,000 new names
// against the test PowerDNS on loopback.
func BenchmarkHiddenCheck(b *testing.B) {
	srv := pdnstest.Shared(b)
	step, bt, run := manyNew(b, srv, "hiddenbench.test.", 1000)
	obs := &observation{Observed: dnsplan.NewObserved(0)}
	b.ResetTimer()
	for b.Loop() {
		if notes, _ := hidden(context.Background(), run, srv.DNSAddr, step.Zone, obs, bt); len(notes) > 0 {
			b.Fatal(notes)
		}
	}
}
