package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/site-tools/site/compiler"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the cmp files in testdata/script/*.txtar from the current output")

// pkgDir is this package's directory, where go test starts the tests.
// They run elsewhere (inNeutralDir), so files of the package and of the
// repository are named from here: pkgFile, repoFile.
var pkgDir string

// pkgFile names a file of this package (testdata/...).
func pkgFile(rel string) string { return filepath.Join(pkgDir, filepath.FromSlash(rel)) }

// repoFile names a file of the repository by its path from the top
// (README.md, site.cue, tenants/sjc.cue).
func repoFile(rel string) string {
	return filepath.Join(pkgDir, "..", "..", filepath.FromSlash(rel))
}

// TestMain lets testscript run this test binary as the "site" command,
// so the scripts in testdata/script exercise the real CLI, exit codes
// included, in a process of its own.
func TestMain(m *testing.M) {
	// Nobody answers apply's question in a test, even when go test runs
	// on a terminal; the tests that want one say so (useTerminal).
	stdinIsTerminal = func() bool { return false }
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	pkgDir = wd
	// The tests' evaluations are cached in a directory of their own,
	// never the user's.
	var tm testscript.TestingM = inNeutralDir{m}
	if os.Getenv("SITE_CACHE_DIR") == "" {
		dir, err := os.MkdirTemp("", "site-test-cache-")
		if err != nil {
			panic(err)
		}
		os.Setenv("SITE_CACHE_DIR", dir)
		tm = removeAfter{tm, dir}
	}
	// Nor do their apply locks live in the user's state directory (a
	// script's site has its own, from Setup).
	if os.Getenv("SITE_TEST_STATE") == "" {
		state, err := os.MkdirTemp("", "site-test-state-")
		if err != nil {
			panic(err)
		}
		os.Setenv("XDG_STATE_HOME", state)
		os.Setenv("SITE_TEST_STATE", "1")
		tm = removeAfter{tm, state}
	}
	testscript.Main(tm, map[string]func(){
		"site": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs every testdata/script/*.txtar: one file per CLI
// behaviour (vet_*, init_*, diff_*, ...). Run with -update-scripts to
// rewrite the cmp files in them from the current output.
//
// Beside testscript's own commands (and `exec site ...`) a script has
// these, which start real or faithful test servers (script_cmds_test.go,
// script_pdns_test.go). A script whose server is not on this machine
// skips, or fails under CI=true, as the Go tests do.
//
//	pdns start FILE...                    a real PowerDNS, shared by the scripts of one
//	                                      run (started by the first that asks); exports
//	                                      PDNS_URL, PDNS_DNS, PDNS_API_KEY and writes
//	                                      ${PDNS_URL} and ${PDNS_DNS} into each FILE
//	pdns zone ZONE LABEL[@TENANT]...      create ZONE, an A rrset (192.0.2.9) per label,
//	                                      marked as TENANT's, or foreign without @
//	[!] pdns has ZONE NAME TYPE           ZONE holds the rrset NAME/TYPE
//	pdns axfr ZONE FILE                   ZONE as transferred (no SOA), sorted, into FILE
//	pdns put ZONE NAME[@TENANT] TYPE TTL VALUE...
//	                                      replace an rrset, as another client would
//	                                      (marked as TENANT's with @)
//	pdns serial ZONE FILE                 write ZONE's serial (the API's) to FILE
//	pdns requests ZONE [KEY=N|KEY=<=N...] reset, or check, the requests counted for
//	                                      ZONE (KEY: GET, POST, PATCH, PUT, DELETE,
//	                                      writes; ZONE - for the server's own)
//	vault start FILE...                   a real Vault dev server of the script's own;
//	                                      exports VAULT_TOKEN and VAULT_URL, writes
//	                                      ${VAULT_URL} into each FILE
//	vault put PATH KEY=VALUE...           a secret in the KV v2 mount secret
//	cloudflare start FILE...              the Cloudflare fake (cftest), the script's own;
//	                                      exports CF_TOKEN and CF_URL, writes ${CF_URL}
//	cloudflare zone ZONE                  add ZONE
//	cloudflare record ZONE NAME TYPE TTL CONTENT [proxied]
//	                                      add a record, as the dashboard would
//	cloudflare records ZONE FILE          ZONE's records into FILE, NAME TYPE CONTENT
//	                                      a line, sorted (for cmp)
//	cloudflare requests [EP=N...]         reset, or check, the fake's requests per
//	                                      endpoint (cftest.Ep*: zones, list, batch...)
//
// Scripts sharing the PowerDNS keep apart by their zone names.
//
// A script may test [pdnslocks]: true when a Go test runs it again with
// site.cue's locks in PowerDNS zone metadata (scriptParams).
func TestScripts(t *testing.T) {
	t.Cleanup(closeSharedPDNS)
	p := scriptParams("")
	p.Dir = pkgFile("testdata/script")
	testscript.Run(t, p)
}

// scriptParams are TestScripts' parameters. With locks set, site.cue
// gets that line appended before the script starts (its files are
// written by then), and the condition [pdnslocks] is true: the same
// script then runs with its tenants' locks and journals elsewhere.
func scriptParams(locks string) testscript.Params {
	return testscript.Params{
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Condition: func(cond string) (bool, error) {
			if cond == "pdnslocks" {
				return locks != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// Output must not depend on the terminal or the user's setup.
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SITE_CACHE_DIR", filepath.Join(env.WorkDir, ".site-cache"))
			scriptStateDir(env)
			scriptSetup(env)
			if locks == "" {
				return nil
			}
			f, err := os.OpenFile(filepath.Join(env.WorkDir, "site.cue"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(f, locks)
			return errors.Join(err, f.Close())
		},
	}
}

// scriptStateDir gives a script apply locks in a state directory of its
// own, outside $WORK (site refuses one beside the specs).
func scriptStateDir(env *testscript.Env) {
	env.Setenv("XDG_STATE_HOME", env.WorkDir+"-state")
	env.Setenv("SITE_TEST_STATE", "1")
	env.Defer(func() { os.RemoveAll(env.WorkDir + "-state") })
}

// removeAfter runs the tests, then removes dir.
type removeAfter struct {
	testscript.TestingM
	dir string
}

func (r removeAfter) Run() int {
	defer os.RemoveAll(r.dir)
	return r.TestingM.Run()
}

// inNeutralDir runs the tests in an empty directory of their own. site
// finds the operator's file from the current directory upwards before
// it looks beside the tenant files, so from this package's directory
// the repository's own site.cue, at its top, would be read in place of
// the one each test writes beside its tenants.
type inNeutralDir struct{ testscript.TestingM }

func (n inNeutralDir) Run() int {
	dir, err := os.MkdirTemp("", "site-test-cwd-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	if found, err := compiler.FindConfig("", nil); err == nil {
		fmt.Fprintf(os.Stderr, "the tests run in %s, and site finds %s above it in place of each test's own %s: move it away\n", dir, found, compiler.ConfigName)
		return 1
	}
	return n.TestingM.Run()
}

// siteProcess is the path of site as a process of its own: the copy of
// this test binary that testscript.Main put first on PATH under that
// name. A test runs site there when the run must be killed, or leaves
// work behind that must die with it (an evaluation past its budget).
func siteProcess(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("site")
	if err != nil || !strings.Contains(path, "testscript-main") {
		t.Fatalf("site on PATH is %q (%v), want testscript's copy of this test binary", path, err)
	}
	return path
}

// specRunner returns how a test runs site in process with args and then
// spec: it fails the test unless site exits wantCode, and returns what
// site printed on stdout.
func specRunner(t *testing.T, spec string) func(wantCode int, args ...string) string {
	return func(wantCode int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append(args, spec), &out, &errOut); code != wantCode {
			t.Fatalf("site %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out.String(), errOut.String())
		}
		return out.String()
	}
}

// specWriter is specRunner for a test that changes the spec between
// runs: each run first writes src to spec.
func specWriter(t *testing.T, spec string) func(wantCode int, src string, args ...string) string {
	run := specRunner(t, spec)
	return func(wantCode int, src string, args ...string) string {
		t.Helper()
		if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return run(wantCode, args...)
	}
}
