package main

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// cmdPDNS gives the script a real PowerDNS and reads and writes it as
// another client would:
//
//	pdns start FILE...                    start it; export PDNS_URL, PDNS_DNS and
//	                                      PDNS_API_KEY, and write ${PDNS_URL} and
//	                                      ${PDNS_DNS} into each FILE
//	pdns zone ZONE LABEL[@TENANT]...      create ZONE with an A rrset (192.0.2.9) per
//	                                      label, marked as TENANT's, or foreign without @
//	[!] pdns has ZONE NAME TYPE           ZONE holds the rrset NAME/TYPE
//	pdns axfr ZONE FILE                   write ZONE as transferred (AXFR, SOA left
//	                                      out), sorted
//	pdns put ZONE NAME[@TENANT] TYPE TTL VALUE...
//	                                      replace an rrset's records, marked as
//	                                      TENANT's with @
//	pdns serial ZONE FILE                 write ZONE's SOA serial (the API's) to FILE
//	pdns requests ZONE                    forget the requests counted for ZONE
//	                                      (- for the server's own, zone lists)
//	pdns requests ZONE KEY=N...           the requests for ZONE since then: KEY is
//	                                      GET, POST, PATCH, PUT, DELETE or writes,
//	                                      N a count, or <=N at most N
func cmdPDNS(ts *testscript.TestScript, neg bool, args []string) {
	st := stateOf(ts)
	if len(args) < 1 || neg && args[0] != "has" {
		ts.Fatalf("usage: pdns start|zone|has|axfr|put|serial|requests ...")
	}
	if args[0] != "start" && st.pdns == nil {
		ts.Fatalf("pdns %s before pdns start", args[0])
	}
	switch args[0] {
	case "start":
		st.pdns = startScriptPDNS(ts, st)
		ts.Setenv("PDNS_API_KEY", st.pdns.APIKey)
		ts.Setenv("PDNS_URL", st.pdns.URL)
		ts.Setenv("PDNS_DNS", st.pdns.DNSAddr)
		expandFiles(ts, args[1:], "PDNS_URL", "PDNS_DNS")
	case "zone":
		pdnsZone(ts, st.pdns, args[1:])
	case "has":
		pdnsHas(ts, st.pdns, neg, args[1:])
	case "axfr":
		pdnsAXFR(ts, st.pdns, args[1:])
	case "put":
		pdnsPut(ts, st.pdns, args[1:])
	case "requests":
		pdnsRequests(ts, st.pdns, args[1:])
	case "serial":
		pdnsSerial(ts, st.pdns, args[1:])
	default:
		ts.Fatalf("unknown pdns command %q: start, zone, has, axfr, put, serial or requests", args[0])
	}
}

// sharedPDNS is the one server the scripts of a TestScripts run share,
// started by the first pdns start and stopped when TestScripts ends
// (closeSharedPDNS). Scripts keep apart by their zone names. Measured
// on a 2-core box under load (the 4 PowerDNS scripts, 6 runs each): a
// shared server ran them in 8.2 s (median), one per script in 8.8 s,
// about the cost of the 3 more starts.
var sharedPDNS struct {
	sync.Mutex
	srv *pdnstest.Server
	err error
}

func startScriptPDNS(ts *testscript.TestScript, st *scriptState) *pdnstest.Server {
	// Without pdns_server this skips the script, or fails it under
	// CI=true, as it does a Go test.
	pdnstest.Require(st.t)
	sharedPDNS.Lock()
	defer sharedPDNS.Unlock()
	if sharedPDNS.srv == nil && sharedPDNS.err == nil {
		dir, err := os.MkdirTemp("", "pdns-script-")
		ts.Check(err)
		sharedPDNS.srv, sharedPDNS.err = pdnstest.Start(dir, pdnstest.Options{})
	}
	ts.Check(sharedPDNS.err)
	return sharedPDNS.srv
}

// closeSharedPDNS stops the scripts' shared server, if one started.
func closeSharedPDNS() {
	sharedPDNS.Lock()
	defer sharedPDNS.Unlock()
	if s := sharedPDNS.srv; s != nil {
		s.Close()
		os.RemoveAll(s.Dir)
	}
	sharedPDNS.srv, sharedPDNS.err = nil, nil
}

func pdnsZone(ts *testscript.TestScript, srv *pdnstest.Server, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: pdns zone ZONE LABEL[@TENANT]...")
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
	status, out, err := setupWrite(srv, "POST", "/zones", body)
	if err != nil || status != 201 {
		ts.Fatalf("create zone %s: status %d, %v: %s", zone, status, err, out)
	}
	ts.Defer(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
}

func pdnsHas(ts *testscript.TestScript, srv *pdnstest.Server, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: pdns has ZONE NAME TYPE")
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

func pdnsAXFR(ts *testscript.TestScript, srv *pdnstest.Server, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: pdns axfr ZONE FILE")
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

func pdnsPut(ts *testscript.TestScript, srv *pdnstest.Server, args []string) {
	if len(args) < 5 {
		ts.Fatalf("usage: pdns put ZONE NAME[@TENANT] TYPE TTL VALUE...")
	}
	ttl, err := strconv.Atoi(args[3])
	ts.Check(err)
	var recs []map[string]any
	for _, v := range args[4:] {
		recs = append(recs, map[string]any{"content": v, "disabled": false})
	}
	name, tenant, owned := strings.Cut(args[1], "@")
	rr := map[string]any{"name": name, "type": args[2], "ttl": ttl, "changetype": "REPLACE", "records": recs}
	if owned {
		rr["comments"] = []map[string]string{{"account": powerdns.MarkerAccount, "content": powerdns.Marker(tenant)}}
	}
	body, _ := json.Marshal(map[string]any{"rrsets": []map[string]any{rr}})
	status, out, err := setupWrite(srv, "PATCH", "/zones/"+args[0], body)
	if err != nil || status != 204 {
		ts.Fatalf("put %s %s: status %d, %v: %s", args[1], args[2], status, err, out)
	}
}

// setupWrite sends a script's own write (its fixture, not what site
// does) to the shared server, tried up to three times on a 500: the
// shared server answered one such write 500 in four runs of the
// scripts, likely its sqlite backend refusing a transaction while
// another script wrote, and a fixture must not fail a script for it.
func setupWrite(srv *pdnstest.Server, method, path string, body []byte) (int, []byte, error) {
	for try := 1; ; try++ {
		status, out, err := srv.Do(context.Background(), method, path, body)
		if err != nil || status != 500 || try == 3 {
			return status, out, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pdnsRequests resets, or checks, the requests the server's proxy
// counted for a zone (pdnstest.Server.Requests), as the Go tests count
// them: how many reads and writes a site command made.
func pdnsRequests(ts *testscript.TestScript, srv *pdnstest.Server, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: pdns requests ZONE [KEY=N|KEY=<=N ...]")
	}
	zone := args[0]
	if zone == "-" {
		zone = ""
	}
	if len(args) == 1 {
		srv.ResetRequests(zone)
		return
	}
	c := srv.Requests(zone)
	got := map[string]int{"GET": c.GET, "POST": c.POST, "PATCH": c.PATCH, "PUT": c.PUT, "DELETE": c.DELETE, "writes": c.Writes()}
	for _, kv := range args[1:] {
		key, want, _ := strings.Cut(kv, "=")
		atMost := strings.HasPrefix(want, "<=")
		n, err := strconv.Atoi(strings.TrimPrefix(want, "<="))
		v, ok := got[key]
		switch {
		case err != nil || !ok:
			ts.Fatalf("pdns requests: %q: want KEY=N or KEY=<=N, KEY one of GET, POST, PATCH, PUT, DELETE, writes", kv)
		case atMost && v > n, !atMost && v != n:
			ts.Fatalf("%s requests for %s: %d, want %s (all: %+v)", key, args[0], v, want, c)
		}
	}
}

// pdnsSerial writes the zone's serial as the API reports it to a file,
// so a script can compare it before and after a run (cmp).
func pdnsSerial(ts *testscript.TestScript, srv *pdnstest.Server, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: pdns serial ZONE FILE")
	}
	status, out, err := srv.Do(context.Background(), "GET", "/zones/"+args[0], nil)
	if err != nil || status != 200 {
		ts.Fatalf("get zone %s: status %d, %v: %s", args[0], status, err, out)
	}
	var z struct {
		Serial int64 `json:"serial"`
	}
	ts.Check(json.Unmarshal(out, &z))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strconv.FormatInt(z.Serial, 10)+"\n"), 0o644))
}
