package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the cmp files in testdata/script/*.txtar from the current output")

// TestMain lets testscript run this test binary as the "site" command,
// so the scripts in testdata/script exercise the real CLI, exit codes
// included, in a process of its own.
func TestMain(m *testing.M) {
	// Nobody answers apply's question in a test, even when go test runs
	// on a terminal; the tests that want one say so (useTerminal).
	stdinIsTerminal = func() bool { return false }
	// The tests' evaluations are cached in a directory of their own,
	// never the user's.
	var tm testscript.TestingM = m
	if os.Getenv("SITE_CACHE_DIR") == "" {
		dir, err := os.MkdirTemp("", "site-test-cache-")
		if err != nil {
			panic(err)
		}
		os.Setenv("SITE_CACHE_DIR", dir)
		tm = removeAfter{m, dir}
	}
	testscript.Main(tm, map[string]func(){
		"site": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs every testdata/script/*.txtar: one file per CLI
// behaviour (vet_*, init_*, diff_*, ...). Run with -update-scripts to
// rewrite the cmp files in them from the current output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Output must not depend on the terminal or the user's setup.
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SITE_CACHE_DIR", filepath.Join(env.WorkDir, ".site-cache"))
			return nil
		},
	})
}

// removeAfter runs the tests, then removes dir.
type removeAfter struct {
	*testing.M
	dir string
}

func (r removeAfter) Run() int {
	defer os.RemoveAll(r.dir)
	return r.M.Run()
}
