package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// runBackends are the drivers one run uses (package providers builds
// them from its table, the one place that names concrete backends).
type runBackends = providers.Set

var _ engine.Backends = (*runBackends)(nil)

// openSession starts diff's or apply's engine session over bk, its
// steps and events shown on stderr by the returned progress, so stdout
// holds only the plan or the report. Close the session at the end.
func openSession(cmd *cobra.Command, args []string, bk *runBackends, run *backends.Run, f planFlags, o engine.Options) (*engine.Session, *engine.TextProgress) {
	stderr := cmd.ErrOrStderr()
	p := engine.NewTextProgress(stderr, isTerminal(stderr), useColor(stderr))
	p.Quiet = f.quiet
	o.Hook, o.Parallelism, o.ExitWithin, o.SlowAfter = p, f.parallelism, releaseOnExit, slowRequestAfter
	o.ConfigDir = configDir(args)
	return engine.Open(cmd.Context(), bk, run, o), p
}

// slowRequestAfter is how long a request goes unanswered before site
// names it on stderr (backends.Run.Slow); tests shorten it.
var slowRequestAfter = backends.DefaultSlowAfter

// configDir is the directory of the operator's file that args load,
// "" when none is found (loading says so).
func configDir(args []string) string {
	if config, _, err := specInput(args); err == nil {
		return filepath.Dir(config)
	}
	return ""
}

// scopeTenants are the tenants whose steps are in g, by name
// (engine.ScopeTenants).
func scopeTenants(g *graph.Graph) []*model.Tenant { return engine.ScopeTenants(g) }

// specDirs are the directories a lock or journal directory must stay
// out of: the operator's file's and those of g's tenants' specs
// (engine.SpecDirs).
func specDirs(args []string, g *graph.Graph) []string { return engine.SpecDirs(configDir(args), g) }

// closeBackends closes the backends of a command without a session
// (engine.CloseWithin). What fails to close changed nothing the run
// did, so it is reported on stderr and does not change the exit code.
func closeBackends(bk *runBackends, stderr io.Writer) {
	if e := engine.CloseWithin(bk.Close, 0); e != nil {
		fmt.Fprintln(stderr, e)
	}
}
