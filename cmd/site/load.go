package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file holds what diff, apply and graph share: loading specs into a
// scoped step graph, the engine wired to this build's backends, and how
// output decides on colour.

// loadGraph loads the specs at paths (./tenants/... when none), builds
// the step graph and keeps the steps of the phases in only (all when
// empty) whose IDs match targets (all when empty), with the secret steps
// they need. An invalid spec is an error listing every problem at
// file:line:col, as site vet prints them; so is a target that matches no
// step in scope.
//
// discover, when not nil, adds the steps only observing finds (a domain
// or network a tenant no longer declares, see backends.Discoverer)
// before targets pick steps, unless every target names a declared step:
// site diff and apply pass it, site graph and completion do not look at
// live systems.
func loadGraph(paths []string, only []plan.Phase, targets []string, budget compiler.Options, discover discoverFunc) (*graph.Graph, error) {
	spec, _, err := loadSpecs(paths, budget)
	if err != nil {
		return nil, err
	}
	g, err := graph.Build(spec)
	if err != nil {
		return nil, fmt.Errorf("compiling the step graph: %w", err)
	}
	// --only first, so a --target naming a step that --only left out is
	// an error (listing what is in scope) rather than an empty run.
	g = g.Only(only)
	looked := false
	var unlisted error
	if discover != nil && !g.NamesOnly(targets) {
		var found []*graph.Step
		found, unlisted = discover(g)
		if g, err = g.With(found); err != nil {
			return nil, fmt.Errorf("compiling the step graph: %w", err)
		}
		looked = true
	}
	scoped, err := g.Targets(targets)
	switch {
	case err == nil:
		return scoped, nil
	case unlisted != nil:
		return nil, fmt.Errorf("--target: %w\n(and what the tenants no longer declare could not be listed, so it is not among them: %v)", err, unlisted)
	case !looked && mayNameUndeclared(g, targets):
		return nil, fmt.Errorf("--target: %w\n(a domain or network a tenant no longer declares is a step only site diff and site apply find, by observing the host)", err)
	}
	return nil, fmt.Errorf("--target: %w", err)
}

// loadSpecs loads the operator's file and the specs at paths
// (./tenants/... when none), and returns the model and the operator's
// file's path. An invalid spec is an error listing every problem at
// file:line:col, as site vet prints them.
func loadSpecs(paths []string, budget compiler.Options) (*model.Spec, string, error) {
	config, paths, err := specInput(paths)
	if err != nil {
		return nil, "", err
	}
	spec, err := compiler.LoadWith(config, paths, budget)
	if err != nil {
		var diags compiler.Diagnostics
		if !errors.As(err, &diags) {
			return nil, "", err
		}
		lines := make([]string, len(diags))
		for i, d := range diags {
			lines[i] = d.Format(relPos)
		}
		return nil, "", fmt.Errorf("the specs have errors (site vet lists the same), so nothing was observed:\n%s", strings.Join(lines, "\n"))
	}
	return spec, config, nil
}

// warnTo is the compiler.Options.Warn of diff, apply and graph: the
// spec's warnings (site vet prints the same) on w, stderr, so that
// stdout keeps only the plan, the report or the graph.
func warnTo(w io.Writer) func(compiler.Diagnostics) {
	return func(ws compiler.Diagnostics) {
		for _, d := range ws {
			fmt.Fprintln(w, d.Format(relPos))
		}
	}
}

// mayNameUndeclared reports whether one of targets may name the removal
// of a domain or network that site graph, not observing, cannot list:
// it names a VM or network step and g has such steps to look from.
func mayNameUndeclared(g *graph.Graph, targets []string) bool {
	kinds := map[string]bool{}
	for _, s := range g.Steps {
		if !s.Prerequisite && (s.VM != nil || s.Network != nil) {
			kinds[strings.SplitN(s.ID, "/", 2)[0]+"/"] = true
		}
	}
	for _, t := range targets {
		for k := range kinds {
			if strings.HasPrefix(t, k) {
				return true
			}
		}
	}
	return false
}

// discoverFunc finds the steps only observing can name, for g (see
// runBackends.discover).
type discoverFunc func(g *graph.Graph) ([]*graph.Step, error)

// configFlag is --config, the operator's file; empty: found as
// compiler.FindConfig says.
var configFlag string

const configFlagHelp = "the operator's file; default: the nearest site.cue upwards"

// specInput is what vet, diff, apply and graph read: the operator's
// file and the tenant files at the PATH arguments.
func specInput(args []string) (string, []string, error) {
	paths, err := specPaths(args)
	if err != nil {
		return "", nil, err
	}
	config, err := compiler.FindConfig(configFlag, paths)
	return config, paths, err
}

// specPaths is the PATH arguments, or ./tenants/... when none are
// given. A missing ./tenants then gets its own message, since the user
// named no path to check.
func specPaths(args []string) ([]string, error) {
	for i, a := range args {
		if a == "" {
			// Most likely an unset shell variable; reading "." instead
			// would vet or converge something nobody named.
			return nil, fmt.Errorf("PATH %d is empty (an unset variable?): name a .cue file, a directory, or dir/...", i+1)
		}
	}
	if len(args) > 0 {
		return args, nil
	}
	if fi, err := os.Stat(defaultDir); err == nil && fi.IsDir() {
		return defaultPaths, nil
	}
	if dir, ok := projectTenants(); ok {
		return []string{dir}, nil
	}
	return nil, fmt.Errorf("no PATH given and no %s directory here, nor beside a site.cue above: name the spec files (e.g. site vet tenants/sjc.cue), or run site inside the project (site init NAME --domain D starts one)", defaultDir)
}

// projectTenants is the default PATH from a directory below the top of
// the project (tenants/ itself, say): the tenants directory beside the
// operator's file found from here, and everything below it, as go finds
// go.mod from a package's directory.
func projectTenants() (string, bool) {
	dir, ok := tenantsBesideConfig()
	if !ok {
		return "", false
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	return dir + string(filepath.Separator) + "...", true // "./...", not Join's "..."
}

// tenantsBesideConfig is the tenants directory beside the operator's
// file found from here (relative to here when it can be); false when
// there is no operator's file.
func tenantsBesideConfig() (string, bool) {
	config, err := compiler.FindConfig(configFlag, nil)
	if err != nil {
		return "", false
	}
	dir := filepath.Join(filepath.Dir(config), defaultDir)
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(dir) {
		if rel, err := filepath.Rel(wd, dir); err == nil {
			dir = rel
		}
	}
	return dir, true
}

// parseOnly reads --only.
func parseOnly(s string) ([]plan.Phase, error) {
	phases, err := graph.ParsePhases(s)
	if err != nil {
		return nil, fmt.Errorf("--only: %w", err)
	}
	return phases, nil
}

// targetFlagHelp is the --target flag's usage for diff, apply and graph.
const targetFlagHelp = "keep the steps whose ID matches, e.g. 'vm/*/keys' (repeatable)"

// parseTargets reads --target: sorted and without repeats, so a saved
// plan's scope compares equal however the patterns were ordered.
func parseTargets(ts []string) []string {
	if len(ts) == 0 {
		return nil
	}
	out := slices.Clone(ts)
	slices.Sort(out)
	return slices.Compact(out)
}

// newEngine wires the executor to this run's backends; progress goes
// to stderr so stdout holds only the plan or the report.
func newEngine(bk *runBackends, parallelism int, stderr io.Writer) (*engine.Engine, *progress) {
	p := newProgress(stderr, isTerminal(stderr), useColor(stderr))
	return &engine.Engine{DriverFor: bk.DriverFor, Parallelism: parallelism, Hook: p}, p
}

// useColor reports whether output to w may carry ANSI colours: only on
// a terminal, and never with NO_COLOR set (https://no-color.org).
func useColor(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// isTerminal reports whether w is a terminal. Being a character device
// is not enough: /dev/null is one, and it is the stdin of a systemd
// service or a cron job, which must never be asked a question.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// commandWords starts a site command line to print for pasting back:
// site, the subcommand, --config when the run was given one (without it
// the pasted command would read another operator's file, or none), and
// args, each quoted for a shell.
func commandWords(sub string, args ...string) []string {
	words := []string{"site", sub}
	if configFlag != "" {
		words = append(words, "--config", shellQuote(configFlag))
	}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return words
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it, so a command
// line site prints can be pasted back as it is.
func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
