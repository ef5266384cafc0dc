package main

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// A PowerDNS whose backend stores no rrset comments (lmdb) cannot hold
// site's owner markers: its POST keeps a new zone's records and drops
// their comments without a word, its PATCH refuses comments whole (422).
// site says so once per server, with what to do, never "not converged"
// per rrset, and writes nothing more to that server in the run.
func TestPowerDNSWithoutCommentsSaysSoOncePerServer(t *testing.T) {
	srv := pdnstest.New(t, pdnstest.Options{Backend: pdnstest.LMDB})
	t.Setenv("PDNS_API_KEY", srv.APIKey)
	t.Setenv(powerdns.EnvDNSAddr, "")
	t.Setenv("NO_COLOR", "1")
	zone := func(name string) string {
		return `	dns: zones: "` + name + `": {
		provider: "pdns"
		ttl: 300
		records: {
			www: A: ["192.0.2.10"]
			mail: A: ["192.0.2.25"]
			"@": TXT: ["v=spf1 -all"]
		}
	}
`
	}
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"pdns"}})
	file := writeSpec(t, site, "office1.cue", `package tenants

tenants: office1: {
	domain: "office1.example.test"
`+zone("office1.example.test")+zone("b.office1.example.test")+`}
`)
	// The explanation, said once per server whichever zone finds it.
	explained := []string{
		"PowerDNS at " + srv.URL + " (server localhost)",
		"its backend (launch=lmdb) does not store rrset comments",
		"site marks the records it manages with rrset comments",
		"cannot manage zones on this server",
		"a backend that stores comments (launch=gsqlite3, gmysql or gpgsql;",
	}
	check := func(step string, code int, out, errOut string, said []string) {
		t.Helper()
		if code != exitError {
			t.Errorf("%s: exit %d, want %d", step, code, exitError)
		}
		if strings.Contains(out, "not converged") || strings.Contains(out, "fix that record in the spec") {
			t.Errorf("%s: reported per rrset or as an invalid record, want one error per server", step)
		}
		if n := strings.Count(out, "failed    dns/"); n != 2 {
			t.Errorf("%s: %d failed steps, want both zones", step, n)
		}
		for _, s := range append(explained, said...) {
			if n := strings.Count(out, s); n != 1 {
				t.Errorf("%s: %q said %d times, want once", step, s, n)
			}
		}
		if t.Failed() {
			t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
	}

	code, out, errOut := siteRun(t, srv, "apply", file)
	check("first apply", code, out, errOut, []string{
		"was created with its records, but the server kept none of the owner markers written with them:",
		"those records are unmarked, so site takes them for foreign data and will never delete them",
		"then run site apply again, which marks them",
	})

	// The zones exist now, unmarked: every diff plans to adopt them,
	// and the PATCH that would mark them is refused.
	srv.ResetRequests("office1.example.test.")
	srv.ResetRequests("b.office1.example.test.")
	code, out, errOut = siteRun(t, srv, "apply", file)
	check("second apply", code, out, errOut, []string{
		`refused the owner markers ("Hosting backend does not support editing comments."): nothing was written`,
	})
	if n := srv.Requests("office1.example.test.").PATCH + srv.Requests("b.office1.example.test.").PATCH; n != 1 {
		t.Errorf("second apply sent %d PATCHes, want 1: the first refusal stops writes to that server", n)
	}
}
