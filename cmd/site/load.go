package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// This file holds what diff, apply and graph share: loading specs into a
// scoped step graph, the engine wired to this build's backends, and how
// output decides on colour.

// loadGraph loads the specs at paths (./tenants/... when none) and
// scopes their step graph (graph.Scope: the phases in only, the steps
// matching targets, what discover finds). An invalid spec is an error
// listing every problem at file:line:col, as site vet prints them.
func loadGraph(paths []string, only []plan.Phase, targets []string, budget compiler.Options, discover discoverFunc) (*graph.Graph, error) {
	spec, _, err := loadSpecs(paths, budget)
	if err != nil {
		return nil, err
	}
	return graph.Scope(spec, only, targets, discover)
}

// loadSpecs loads the operator's file and the specs at paths
// (./tenants/... when none, see compiler.SpecPaths), and returns the
// model and the operator's file's path. An invalid spec is an error
// listing every problem at file:line:col, as site vet prints them.
func loadSpecs(paths []string, budget compiler.Options) (*model.Spec, string, error) {
	spec, config, err := compiler.LoadSpecs(configFlag, paths, budget)
	var diags compiler.Diagnostics
	if err == nil || !errors.As(err, &diags) || config == "" {
		return spec, config, err
	}
	lines := make([]string, len(diags))
	for i, d := range diags {
		lines[i] = d.Format(relPos)
	}
	return nil, "", fmt.Errorf("the specs have errors (site vet lists the same), so nothing was observed:\n%s", strings.Join(lines, "\n"))
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

// discoverFunc finds the steps only observing can name, for g (see
// runBackends.discover).
type discoverFunc func(g *graph.Graph) ([]*graph.Step, error)

// configFlag is --config, the operator's file; empty: found as
// compiler.FindConfig says.
var configFlag string

const configFlagHelp = "the operator's file; default: the nearest site.cue upwards"

// specInput is what vet, diff, apply and graph read: the operator's
// file and the tenant files at the PATH arguments (compiler.SpecInput).
func specInput(args []string) (string, []string, error) {
	return compiler.SpecInput(configFlag, args)
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

// parseTargets reads --target (and --restart's names): sorted and
// without repeats, so a saved plan's scope compares equal however the
// patterns were ordered.
func parseTargets(ts []string) []string {
	if len(ts) == 0 {
		return nil
	}
	out := slices.Clone(ts)
	slices.Sort(out)
	return slices.Compact(out)
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
	argv := []string{"site", sub}
	if configFlag != "" {
		argv = append(argv, "--config", words.ShellQuote(configFlag))
	}
	for _, a := range args {
		argv = append(argv, words.ShellQuote(a))
	}
	return argv
}
