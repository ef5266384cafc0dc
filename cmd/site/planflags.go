package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// planFlags are the flags diff and apply share: the scope and what
// shapes the plan. Both take the same ones so that the plan diff shows
// (and saves for apply --plan) is the one apply with the same flags
// carries out.
type planFlags struct {
	command         string // apply or diff: the gates --ack takes
	only            string
	targets         []string
	acks            []string
	parallelism     int
	restarts        []string
	deleteThreshold int
	updateThreshold int
	// requestTimeout bounds each request to a server, its retries
	// included (backends.Run.RequestTimeout).
	requestTimeout time.Duration
	// quiet prints only the changes and the problems (see quiet.go).
	quiet bool
}

// planFlagHelp is what each shared flag means to one command.
type planFlagHelp struct {
	only, parallelism, restart, ack, deleteThreshold, updateThreshold string
}

// deleteThresholdHelp says what --delete-threshold counts.
var deleteThresholdHelp = fmt.Sprintf("percent of a zone's records (of %d+) deleted ungated", backends.DefaultDeleteManyMin)

// updateThresholdHelp says what --update-threshold counts.
var updateThresholdHelp = fmt.Sprintf("percent of a zone's records (of %d+) updated ungated", backends.DefaultDeleteManyMin)

// add defines the shared flags on cmd with the command's own words.
func (f *planFlags) add(cmd *cobra.Command, help planFlagHelp) {
	f.command = cmd.Name()
	fs := cmd.Flags()
	fs.StringVar(&f.only, "only", "", help.only)
	fs.StringArrayVar(&f.targets, "target", nil, targetFlagHelp)
	fs.StringArrayVar(&f.acks, "ack", nil, help.ack)
	fs.IntVar(&f.parallelism, "parallelism", engine.DefaultParallelism, help.parallelism)
	fs.StringArrayVar(&f.restarts, "restart", nil, help.restart)
	fs.IntVar(&f.deleteThreshold, "delete-threshold", backends.DefaultDeleteManyPercent, help.deleteThreshold)
	fs.IntVar(&f.updateThreshold, "update-threshold", backends.DefaultUpdateManyPercent, help.updateThreshold)
	durationVar(fs, &f.requestTimeout, "request-timeout", backends.DefaultRequestTimeout, false, "a positive duration such as 30s",
		"give up on a silent server after this long")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, quietFlagHelp)
	completeScope(cmd)
}

// newRun checks the flags that need no spec and returns the run they
// describe: acknowledged gates, restarts and the thresholds
// (plan.ParseSettings).
func (f *planFlags) newRun() (*backends.Run, error) {
	if f.parallelism < 1 {
		return nil, fmt.Errorf("--parallelism %d: use 1 or more", f.parallelism)
	}
	s, err := plan.ParseSettings(f.command, f.acks, f.restarts, f.deleteThreshold, f.updateThreshold)
	if err != nil {
		return nil, err
	}
	run := engine.NewRun()
	run.Settings, run.RequestTimeout = s, f.requestTimeout
	return run, nil
}

// thresholds are the flags of the "many at once" gates as given
// (plan.Settings.Thresholds).
func (f *planFlags) thresholds() []plan.Threshold {
	return plan.Settings{DeleteManyPercent: f.deleteThreshold, UpdateManyPercent: f.updateThreshold}.Thresholds()
}

// words rebuilds the flags as they were given (those at their defaults
// left out), for a command line site prints to be pasted back. The
// command's own flags come between the scope and the rest, as extra.
func (f *planFlags) words(extra ...string) []string {
	var argv []string
	if f.only != "" {
		argv = append(argv, "--only", words.ShellQuote(f.only))
	}
	for _, t := range f.targets {
		argv = append(argv, "--target", words.ShellQuote(t))
	}
	argv = append(argv, extra...)
	if f.parallelism != engine.DefaultParallelism {
		argv = append(argv, "--parallelism", strconv.Itoa(f.parallelism))
	}
	for _, t := range f.thresholds() {
		if t.Value != t.Default {
			argv = append(argv, "--"+t.Flag, strconv.Itoa(t.Value))
		}
	}
	if f.requestTimeout != 0 && f.requestTimeout != backends.DefaultRequestTimeout {
		argv = append(argv, "--request-timeout", f.requestTimeout.String())
	}
	for _, r := range f.restarts {
		argv = append(argv, "--restart", words.ShellQuote(r))
	}
	for _, a := range f.acks {
		argv = append(argv, "--ack", a)
	}
	return argv
}

// scope loads the specs at args into the graph of phases and targets,
// with the steps discover finds, and checks --restart against it.
func (f *planFlags) scope(args []string, phases []plan.Phase, targets []string, budget compiler.Options, discover discoverFunc) (*graph.Graph, error) {
	g, err := loadGraph(args, phases, targets, budget, discover)
	if err != nil {
		return nil, err
	}
	if err := g.CheckRestarts(f.restarts); err != nil {
		return nil, err
	}
	return g, nil
}
