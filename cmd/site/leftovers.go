package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

func init() { register(newLeftoversCmd) }

func newLeftoversCmd() *cobra.Command {
	var format, provider string
	cmd := &cobra.Command{
		Use:     "leftovers [PATH ...]",
		Short:   "List what site marked that no spec declares any more (read-only)",
		Long:    longHelp("leftovers"),
		Example: examples("leftovers"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLeftovers(cmd, args, format, provider)
		},
	}
	addBudgetFlags(cmd)
	cmd.Flags().StringVar(&provider, "provider", "", "read only this provider of site.cue (and no host)")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", completeWords("text\tthe report for a terminal", "json\tthe versioned JSON report"))
	return cmd
}

func runLeftovers(cmd *cobra.Command, args []string, format, provider string) error {
	if format != "text" && format != "json" {
		return withCode(exitError, fmt.Errorf("--format %q: use text or json", format))
	}
	load := budget(cmd)
	load.Warn = warnTo(cmd.ErrOrStderr())
	// What no tenant declares is judged against every tenant's file,
	// not only those named.
	load.Neighbours = true
	spec, config, alone, err := compiler.LoadForLeftovers(configFlag, args, load, loadSpecs)
	if err != nil {
		return withCode(exitError, err)
	}
	op, err := compiler.ReadOperatorAt(config)
	if err != nil {
		return withCode(exitError, err)
	}
	in := leftovers.Input{Tenants: spec.Tenants, Providers: op.Providers(), Hosts: op.Hosts(), Images: op.Images(), Granted: op.Grants, Grantees: op.Grantees(), NoTenantFile: alone}
	if provider != "" {
		if in, err = in.Only(provider, config); err != nil {
			return withCode(exitError, err)
		}
	}
	run := engine.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	// As diff: a server slow to answer is named, and the first Ctrl-C
	// stops the reading (it only reads), leaving the rest unread.
	stderr := cmd.ErrOrStderr()
	prog := engine.NewTextProgress(stderr, isTerminal(stderr), useColor(stderr))
	prog.WatchSlow(run, slowRequestAfter)
	reading, stopReading := context.WithCancel(cmd.Context())
	defer stopReading()
	defer watchInterrupts(prog, run, stopReading, nil)()
	f := &leftovers.Finder{DNS: bk.MarkReaders(), Hosts: bk.Owners, NoHosts: bk.Absent(), Run: run,
		Prepare: leftovers.VaultCredentials(bk.Kinds[plan.PhaseSecrets], spec.Vaults, run),
		Command: pasteable(config)}
	report := f.Find(reading, in)
	out := cmd.OutOrStdout()
	if format == "json" {
		err = report.WriteJSON(out)
	} else {
		err = report.WriteText(out)
	}
	switch {
	case err != nil:
		return withCode(exitError, err)
	case report.Unread():
		return withCode(exitError, fmt.Errorf("what could not be read or judged is said in the report, and may hold leftovers: fix what it says and run site leftovers again"))
	case report.Found():
		return withCode(exitChanges, nil)
	}
	return nil
}

// pasteable prints the site commands the report advises. They name the
// operator's file with --config when site found it beside the PATHs
// rather than from the current directory: pasted here, the command
// would not find it.
func pasteable(config string) func(sub string, args ...string) string {
	return func(sub string, args ...string) string {
		argv := commandWords(sub, args...)
		if here, err := compiler.FindConfig("", nil); configFlag == "" && (err != nil || here != config) {
			argv = append(argv, "--config", words.ShellQuote(config))
		}
		return strings.Join(argv, " ")
	}
}
