package powerdns

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/plan"
)

// TestForeignCommentsPrintAsOneLine writes rrset comments as another
// writer of the server can (by hand, another tool): a forged owner
// marker whose tenant holds a newline, a workflow command and a
// terminal escape, and one of a megabyte. The plan that quotes them (the
// text a terminal or a workflow log shows, the Markdown of a pull
// request comment) shows each escaped, on one line, and short.
func TestForeignCommentsPrintAsOneLine(t *testing.T) {
	srv := pdnstest.Shared(t)
	zone := "comments.foreign.test."
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	forged := func(tenant string) []pdnstest.Comment {
		return []pdnstest.Comment{{Account: MarkerAccount, Content: "managed by site tenant=" + tenant}}
	}
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
			Comments: forged("lab\n::error::forged\x1b[2J")},
		pdnstest.RRset{Name: "big." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
			Comments: forged(strings.Repeat("x", 1<<20))},
	)
	sp := mustPlan(t, testDriver(), zoneStep(srv, "office1", zone,
		rr("www."+zone, "A", 300, "192.0.2.10"), rr("big."+zone, "A", 300, "192.0.2.9")), newRun(srv))
	if len(sp.Changes) != 2 {
		t.Fatalf("got %v, want the overwrite of www and the adoption of big", summary(sp.Changes))
	}
	for _, c := range sp.Changes {
		if i := strings.IndexFunc(c.Reason, unicode.IsControl); i >= 0 {
			t.Errorf("%s: reason %q holds %q, which the plan prints as it is", c.Key, c.Reason, c.Reason[i:i+1])
		}
		if len(c.Reason) > 1000 {
			t.Errorf("%s: reason is %d bytes long, want the comment shortened", c.Key, len(c.Reason))
		}
		if len(c.Gates) != 1 || c.Gates[0] != plan.GateDNSOverwrite {
			t.Errorf("%s: gates %v, want GATE-DNS-OVERWRITE: the marker names no tenant of this run", c.Key, c.Gates)
		}
	}
	p := &plan.Plan{Changes: sp.Changes}
	var text, md strings.Builder
	if err := p.WriteText(&text, plan.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteMarkdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	for form, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsRune(line, '\x1b') {
				t.Errorf("the %s plan has a line the comment wrote: %q", form, line)
			}
		}
		if !strings.Contains(out, `lab\n::error::forged\x1b[2J`) {
			t.Errorf("the %s plan does not show the forged owner escaped:\n%s", form, out)
		}
	}
}

// TestServerErrorTextIsOneLine: what answers at a PowerDNS url may be a
// proxy in front of it, whose error page is HTML over many lines, or
// anything at all. The error that quotes it (the reason a step is not
// planned, on the terminal, in a workflow log and the plan) shows it
// escaped on one line and shortened.
func TestServerErrorTextIsOneLine(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "proxied.foreign.test."
	srv.CreateZone(t, zone)
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
	for _, tc := range []struct{ name, body string }{
		{"html page", "<html>\n<body>\n::error::forged\x1b[2J</body>\n</html>\n"},
		{"json error", `{"error": "bad\n::error::forged\u001b[2J"}`},
		{"5.1 errors", `{"errors": ["bad\n::error::forged\u001b[2J", "more"]}`},
		{"a megabyte", strings.Repeat("x", 1<<20)},
	} {
		for _, status := range []int{http.StatusBadGateway, http.StatusUnprocessableEntity} {
			t.Run(fmt.Sprint(tc.name, " ", status), func(t *testing.T) {
				srv.FailWhen(t, func(r *http.Request) (int, string, bool) { return status, tc.body, r.Method == "GET" })
				sp, err := testDriver().Plan(context.Background(), zoneStep(srv, "office1", zone), newRun(srv))
				if err == nil {
					t.Fatalf("got a plan with %q, want an error", summary(sp.Changes))
				}
				msg := err.Error()
				if i := strings.IndexFunc(msg, unicode.IsControl); i >= 0 {
					t.Errorf("error %q holds %q, which site prints as it is", msg, msg[i:i+1])
				}
				if len(msg) > 2000 {
					t.Errorf("error is %d bytes, want the server's text shortened", len(msg))
				}
				if !strings.Contains(msg, "nothing is planned") {
					t.Errorf("error %q does not say that nothing is planned", msg)
				}
			})
		}
	}
}
