package main

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// scriptCmds are the commands the scripts in testdata/script have
// beside testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"pdns": cmdPDNS,
}

// cmdPDNS starts a real PowerDNS for the script, stopped when it ends:
//
//	pdns start FILE...
//
// It exports PDNS_API_KEY and writes the server's API URL and DNS
// address into each FILE in place of ${PDNS_URL} and ${PDNS_DNS}, so a
// script's site.cue names the server as an operator's would. Guard it
// with [!exec:pdns_server] skip.
func cmdPDNS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || args[0] != "start" {
		ts.Fatalf("usage: pdns start FILE...")
	}
	dir, err := os.MkdirTemp("", "pdns-script-")
	ts.Check(err)
	srv, err := pdnstest.Start(dir, pdnstest.Options{})
	ts.Check(err)
	ts.Defer(func() {
		srv.Close()
		os.RemoveAll(dir)
	})
	ts.Setenv("PDNS_API_KEY", srv.APIKey)
	for _, f := range args[1:] {
		data, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		s := strings.NewReplacer("${PDNS_URL}", srv.URL, "${PDNS_DNS}", srv.DNSAddr).Replace(string(data))
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(s), 0o644))
	}
}
