package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestScriptsPowerDNS runs every testdata/script_pdns/*.txtar against a
// real PowerDNS of its own, for CLI behaviour that needs live records
// (what apply does without a terminal). Each script sees the server as
// $PDNS_URL, $PDNS_DNS and $PDNS_API_KEY, and has three commands:
//
//	expand FILE                   replaces ${VAR} in FILE with the script's environment
//	pdns-zone ZONE LABEL[@TENANT]...  creates ZONE with an A rrset (192.0.2.9)
//	                              per label, marked as TENANT's, or foreign without @
//	pdns-has ZONE NAME TYPE       succeeds when ZONE holds the rrset NAME/TYPE
func TestScriptsPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	testscript.Run(t, testscript.Params{
		Dir:                 pkgFile("testdata/script_pdns"),
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
		},
	})
}

func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: expand FILE")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

func cmdPDNSZone(ts *testscript.TestScript, srv *pdnstest.Server, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: pdns-zone ZONE LABEL[@TENANT]...")
	}
	zone := args[0]
	rrsets := []map[string]any{}
	for _, a := range args[1:] {
		label, tenant, owned := strings.Cut(a, "@")
		rr := map[string]any{"name": label + "." + zone, "type": "A", "ttl": 300,
			"records": []map[string]any{{"content": "192.0.2.9", "disabled": false}}}
		if owned {
			rr["comments"] = []map[string]string{{"account": powerdns.MarkerAccount, "content": powerdns.Marker(tenant)}}
		}
		rrsets = append(rrsets, rr)
	}
	body, _ := json.Marshal(map[string]any{"name": zone, "kind": "Native", "soa_edit_api": "DEFAULT", "nameservers": []string{}, "rrsets": rrsets})
	status, out, err := srv.Do(context.Background(), "POST", "/zones", body)
	if err != nil || status != 201 {
		ts.Fatalf("create zone %s: status %d, %v: %s", zone, status, err, out)
	}
	ts.Defer(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
}

func cmdPDNSHas(ts *testscript.TestScript, srv *pdnstest.Server, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: pdns-has ZONE NAME TYPE")
	}
	status, out, err := srv.Do(context.Background(), "GET", "/zones/"+args[0], nil)
	if err != nil || status != 200 {
		ts.Fatalf("get zone %s: status %d, %v: %s", args[0], status, err, out)
	}
	var z struct {
		RRsets []struct{ Name, Type string } `json:"rrsets"`
	}
	ts.Check(json.Unmarshal(out, &z))
	has := false
	for _, r := range z.RRsets {
		has = has || (r.Name == args[1] && r.Type == args[2])
	}
	switch {
	case has && neg:
		ts.Fatalf("%s holds %s %s", args[0], args[1], args[2])
	case !has && !neg:
		ts.Fatalf("%s does not hold %s %s", args[0], args[1], args[2])
	}
}
