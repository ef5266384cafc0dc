package main

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/backends/vault/vaulttest"
)

// scriptCmds are the commands the scripts in testdata/script have
// beside testscript's own; TestScripts's doc comment lists them.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"pdns":       cmdPDNS,
	"vault":      cmdVault,
	"cloudflare": cmdCloudflare,
}

// scriptKey finds a script's scriptState in its Values.
type scriptKey struct{}

// scriptState is what one script's commands started: its servers, and
// the test that stops them when the script ends.
type scriptState struct {
	t     testing.TB
	pdns  *pdnstest.Server
	vault *vaulttest.Dev
	cf    *cftest.Server
	zones map[string]string // Cloudflare zone name -> id
}

// scriptSetup gives the script a scriptState (Setup calls it).
func scriptSetup(env *testscript.Env) {
	tb, _ := env.T().(testing.TB)
	env.Values[scriptKey{}] = &scriptState{t: tb, zones: map[string]string{}}
}

func stateOf(ts *testscript.TestScript) *scriptState {
	return ts.Value(scriptKey{}).(*scriptState)
}

// expandFiles writes each value of vars into FILEs in place of its
// ${NAME}, so a script's site.cue names a server as an operator's would.
// Only these names are replaced: CUE and regexps use $ of their own.
func expandFiles(ts *testscript.TestScript, files []string, vars ...string) {
	var pairs []string
	for _, name := range vars {
		pairs = append(pairs, "${"+name+"}", ts.Getenv(name))
	}
	r := strings.NewReplacer(pairs...)
	for _, f := range files {
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(r.Replace(ts.ReadFile(f))), 0o644))
	}
}

// scriptVaultToken is the root token of a script's Vault.
const scriptVaultToken = "script-root-token"

// cmdVault starts a real Vault dev server for the script and writes to it:
//
//	vault start FILE...          start it; export VAULT_TOKEN and VAULT_URL, and
//	                             write ${VAULT_URL} into each FILE
//	vault put PATH KEY=VALUE...  write a secret at PATH in the KV v2 mount secret
func cmdVault(ts *testscript.TestScript, neg bool, args []string) {
	st := stateOf(ts)
	if neg || len(args) < 1 {
		ts.Fatalf("usage: vault start FILE... | vault put PATH KEY=VALUE...")
	}
	switch args[0] {
	case "start":
		// Without the binary this skips the script, or fails it under
		// CI=true, as it does a Go test.
		st.vault = vaulttest.StartDev(st.t, scriptVaultToken)
		ts.Setenv("VAULT_TOKEN", st.vault.RootToken)
		ts.Setenv("VAULT_URL", st.vault.URL)
		expandFiles(ts, args[1:], "VAULT_URL")
	case "put":
		if st.vault == nil || len(args) < 3 {
			ts.Fatalf("usage: vault put PATH KEY=VALUE... (after vault start)")
		}
		data := map[string]any{}
		for _, kv := range args[2:] {
			k, v, _ := strings.Cut(kv, "=")
			data[k] = v
		}
		st.vault.Put("secret", args[1], data)
	default:
		ts.Fatalf("unknown vault command %q: start or put", args[0])
	}
}

// scriptCFToken is the token a script's Cloudflare fake accepts.
const scriptCFToken = "script-cf-token"

// cmdCloudflare starts the Cloudflare fake for the script and fills it:
//
//	cloudflare start FILE...       start it; export CF_TOKEN and CF_URL, and write
//	                               ${CF_URL} into each FILE
//	cloudflare zone ZONE           add ZONE
//	cloudflare record ZONE NAME TYPE TTL CONTENT [proxied]
//	                               add a record as the dashboard would
//	cloudflare records ZONE FILE   write ZONE's records to FILE, one NAME TYPE CONTENT
//	                               a line, sorted (for cmp)
//	cloudflare requests [EP=N...]  reset, or check, the requests counted per
//	                               endpoint (cftest's Ep*: zones, list, batch...)
func cmdCloudflare(ts *testscript.TestScript, neg bool, args []string) {
	st := stateOf(ts)
	if neg || len(args) < 1 {
		ts.Fatalf("usage: cloudflare start|zone|record ...")
	}
	if args[0] != "start" && st.cf == nil {
		ts.Fatalf("cloudflare %s before cloudflare start", args[0])
	}
	switch {
	case args[0] == "start":
		st.cf = cftest.New(scriptCFToken)
		ts.Defer(st.cf.Close)
		ts.Setenv("CF_TOKEN", scriptCFToken)
		ts.Setenv("CF_URL", st.cf.URL)
		expandFiles(ts, args[1:], "CF_URL")
	case args[0] == "zone" && len(args) == 2:
		st.zones[strings.TrimSuffix(args[1], ".")] = st.cf.AddZone(args[1])
	case args[0] == "record" && (len(args) == 6 || len(args) == 7 && args[6] == "proxied"):
		id, ok := st.zones[strings.TrimSuffix(args[1], ".")]
		if !ok {
			ts.Fatalf("cloudflare record: no zone %s (cloudflare zone first)", args[1])
		}
		ttl, err := strconv.Atoi(args[4])
		ts.Check(err)
		r := cftest.Record{Name: args[2], Type: args[3], TTL: ttl, Content: args[5], Proxied: len(args) == 7}
		if _, err := st.cf.AddRecord(id, r); err != nil {
			ts.Fatalf("cloudflare record %v: %v", args[1:], err)
		}
	case args[0] == "records" && len(args) == 3:
		id, ok := st.zones[strings.TrimSuffix(args[1], ".")]
		if !ok {
			ts.Fatalf("cloudflare records: no zone %s (cloudflare zone first)", args[1])
		}
		var lines []string
		for _, r := range st.cf.Records(id) {
			lines = append(lines, r.Name+" "+r.Type+" "+r.Content+"\n")
		}
		sort.Strings(lines)
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(strings.Join(lines, "")), 0o644))
	case args[0] == "requests":
		cfRequests(ts, st.cf, args[1:])
	default:
		ts.Fatalf("usage: cloudflare start FILE... | zone ZONE | record ZONE NAME TYPE TTL CONTENT [proxied] | records ZONE FILE | requests [EP=N...]")
	}
}

// cfRequests resets the fake's request counts (no args), or checks
// each EP=N against them.
func cfRequests(ts *testscript.TestScript, cf *cftest.Server, args []string) {
	if len(args) == 0 {
		cf.ResetCounts()
		return
	}
	for _, kv := range args {
		ep, want, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(want)
		if !ok || err != nil {
			ts.Fatalf("cloudflare requests: %q: want ENDPOINT=N", kv)
		}
		if got := cf.Count(ep); got != n {
			ts.Fatalf("%s requests: %d, want %d (all: %v)", ep, got, n, cf.Counts())
		}
	}
}
