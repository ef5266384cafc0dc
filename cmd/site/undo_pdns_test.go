package main

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestUndoScriptsPowerDNS runs testdata/script_undo/*.txtar (site
// history and site undo) against a real PowerDNS of its own, with the
// commands of TestScriptsPowerDNS and two more:
//
//	pdns-axfr ZONE FILE                 writes ZONE as transferred (AXFR, SOA left out), sorted
//	pdns-put ZONE NAME TYPE TTL VALUE...  replaces an rrset's records, as another client would
func TestUndoScriptsPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	testscript.Run(t, testscript.Params{
		Dir:                 pkgFile("testdata/script_undo"),
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SITE_CACHE_DIR", env.WorkDir+"/.site-cache")
			env.Setenv("PDNS_URL", srv.URL)
			env.Setenv("PDNS_DNS", srv.DNSAddr)
			env.Setenv("PDNS_API_KEY", srv.APIKey)
			scriptStateDir(env)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"expand":    cmdExpand,
			"pdns-zone": func(ts *testscript.TestScript, neg bool, args []string) { cmdPDNSZone(ts, srv, neg, args) },
			"pdns-has":  func(ts *testscript.TestScript, neg bool, args []string) { cmdPDNSHas(ts, srv, neg, args) },
			"pdns-axfr": func(ts *testscript.TestScript, neg bool, args []string) { cmdPDNSAXFR(ts, srv, neg, args) },
			"pdns-put":  func(ts *testscript.TestScript, neg bool, args []string) { cmdPDNSPut(ts, srv, neg, args) },
		},
	})
}

func cmdPDNSAXFR(ts *testscript.TestScript, srv *pdnstest.Server, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pdns-axfr ZONE FILE")
	}
	m := new(dns.Msg)
	m.SetAxfr(args[0])
	ch, err := (&dns.Transfer{}).In(m, srv.DNSAddr)
	ts.Check(err)
	var out []string
	for env := range ch {
		ts.Check(env.Error)
		for _, rr := range env.RR {
			if rr.Header().Rrtype != dns.TypeSOA {
				out = append(out, strings.ReplaceAll(rr.String(), "\t", " "))
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(out, "\n")+"\n"), 0o644))
}

func cmdPDNSPut(ts *testscript.TestScript, srv *pdnstest.Server, neg bool, args []string) {
	if neg || len(args) < 5 {
		ts.Fatalf("usage: pdns-put ZONE NAME TYPE TTL VALUE...")
	}
	ttl, err := strconv.Atoi(args[3])
	ts.Check(err)
	var recs []map[string]any
	for _, v := range args[4:] {
		recs = append(recs, map[string]any{"content": v, "disabled": false})
	}
	body, _ := json.Marshal(map[string]any{"rrsets": []map[string]any{{"name": args[1], "type": args[2], "ttl": ttl,
		"changetype": "REPLACE", "records": recs}}})
	status, out, err := srv.Do(context.Background(), "PATCH", "/zones/"+args[0], body)
	if err != nil || status != 204 {
		ts.Fatalf("put %s %s: status %d, %v: %s", args[1], args[2], status, err, out)
	}
}
