package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newLeftoversCmd) }

func newLeftoversCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "leftovers [PATH ...]",
		Short: "List what site marked that no spec declares any more (read-only)",
		Long: `leftovers answers "what did site mark that no spec declares any more?",
which no diff or apply looks at: looking would cost reads on every run.
It loads site.cue and the tenant files as diff does (PATH, default
./tenants/...; every tenant file beside those named counts too; with
no PATH and no .cue file left under ./tenants, site.cue alone, which
the report's first line says) and, only reading:

  - lists the zones of each PowerDNS and Cloudflare provider site.cue
    declares (one listing per provider), and reads each zone that no
    tenant declares on that provider (one read each, eight at a time;
    a declared zone is not read): a zone whose RRsets carry site's
    owner marker is a removed tenant's zone, a zone handed away, or the
    copy a zone left on a provider it moved off. A zone without markers is not site's
    and is not reported.
  - lists the domains and networks on each libvirt host site.cue
    declares that carry site's owner element, and reports those whose
    tenant declares nothing of that kind on that host any more (or whose
    file was not loaded): what diff and apply never look at there.
  - lists, per storage pool of those hosts, the uploads that did not
    finish (a killed run's seed or base image) that no run takes up
    again: a seed whose marker names a tenant that declares no VM on
    the host, a seed whose marker names no tenant (an older site's), a
    base image site.cue no longer declares there; and the whole seeds
    no domain has whose bytes prove site made them for a VM no tenant
    declares there (a domain undefined by hand). Only what site's own
    markers or bytes prove is reported, never a volume for being listed
    nowhere, nor one any domain has a disk on.

Each leftover is named with its owner tenant (a zone's first few marked
names, with their count) and the command that removes it: site disown
for a zone's markers (the records stay, foreign to every tenant; delete
the zone by hand to stop serving it), virsh for a domain (and the
volumes site made for it), a network, or an upload (its partial
volume, then its markers). Credentials are read as diff reads them,
from the environment or a Vault store.

  site leftovers                       every tenant file under ./tenants
  site leftovers --format json         the versioned JSON report

Exit codes: 0 nothing left over, 2 something is left over, 1 an error,
among them a provider, zone or host that could not be read (never
reported as holding nothing).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLeftovers(cmd, args, format)
		},
	}
	addBudgetFlags(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", completeWords("text\tthe report for a terminal", "json\tthe versioned JSON report"))
	return cmd
}

func runLeftovers(cmd *cobra.Command, args []string, format string) error {
	if format != "text" && format != "json" {
		return withCode(exitError, fmt.Errorf("--format %q: use text or json", format))
	}
	load := budget(cmd)
	load.Warn = warnTo(cmd.ErrOrStderr())
	// What no tenant declares is judged against every tenant's file,
	// not only those named.
	load.Neighbours = true
	spec, config, alone, err := loadForLeftovers(args, load)
	if err != nil {
		return withCode(exitError, err)
	}
	op, err := readOperator(config)
	if err != nil {
		return withCode(exitError, err)
	}
	run := backends.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	// As diff: a server slow to answer is named, and the first Ctrl-C
	// stops the reading (it only reads), leaving the rest unread.
	stderr := cmd.ErrOrStderr()
	prog := newProgress(stderr, isTerminal(stderr), useColor(stderr))
	prog.watchSlow(run)
	reading, stopReading := context.WithCancel(cmd.Context())
	defer stopReading()
	defer watchInterrupts(prog, run, stopReading, nil)()
	f := &leftovers.Finder{DNS: bk.MarkReaders(), Hosts: bk.Owners, NoHosts: bk.Absent(), Run: run,
		Prepare: readCredential(bk, spec, run),
		Command: pasteable(config)}
	report := f.Find(reading, leftovers.Input{Tenants: spec.Tenants, Providers: op.Providers(), Hosts: op.Hosts(), Images: op.Images(), Granted: op.Grants, Grantees: op.Grantees(), NoTenantFile: alone})
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

// loadForLeftovers loads the specs as diff does. With no PATH and no
// tenant file under ./tenants it loads site.cue alone (alone is then
// true), where diff refuses to: every tenant removed is when what site
// marked is most left over. ./tenants may have gone with its last file
// (git keeps no empty directory); then only site.cue in the current
// directory says this is the checkout, not a directory below it, whose
// missing ./tenants says nothing.
func loadForLeftovers(args []string, load compiler.Options) (spec *model.Spec, config string, alone bool, err error) {
	if len(args) > 0 {
		spec, config, err = loadSpecs(args, load)
		return spec, config, false, err
	}
	empty, gone := tenantDirState()
	if !empty {
		spec, config, err = loadSpecs(args, load)
		return spec, config, false, err
	}
	config, err = compiler.FindConfig(configFlag, nil)
	if err != nil {
		return nil, "", false, err
	}
	if gone && !inCurrentDir(config) {
		spec, config, err = loadSpecs(args, load) // says ./tenants is missing
		return spec, config, false, err
	}
	spec, err = compiler.LoadWith(config, nil, load)
	if err != nil {
		return nil, "", false, fmt.Errorf("no tenant file under ./%s, so site.cue alone was loaded: %w", defaultDir, err)
	}
	return spec, config, true, nil
}

// tenantDirState says whether ./tenants holds no .cue file at any
// depth (empty), and whether that is because it is not there (gone).
// A .cue file the load would refuse (a link) counts as one: the load
// then says why.
func tenantDirState() (empty, gone bool) {
	fi, err := os.Stat(defaultDir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, true
	}
	if err != nil || !fi.IsDir() {
		return false, false // the load says what is wrong with it
	}
	found := false
	walkErr := filepath.WalkDir(defaultDir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(d.Name()) == ".cue" {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	// A directory that cannot be read may hold tenant files: the load
	// says so rather than this run judging every zone undeclared.
	return !found && walkErr == nil, false
}

// inCurrentDir reports whether file is in the current directory.
func inCurrentDir(file string) bool {
	abs, err := filepath.Abs(file)
	wd, werr := os.Getwd()
	return err == nil && werr == nil && filepath.Dir(abs) == wd
}

// readCredential reads a provider's credential into run when it is in
// a Vault store, as diff's secret step would (one read per secret).
func readCredential(bk *runBackends, spec *model.Spec, run *backends.Run) func(context.Context, model.Provider) error {
	read := map[string]error{}
	return func(ctx context.Context, p model.Provider) error {
		ref := p.Credential().Vault
		if ref == nil {
			return nil // from the environment, read when used
		}
		id := graph.SecretStepID(*ref)
		if err, ok := read[id]; ok {
			return err
		}
		// leftovers has no steps to defer, so a store that does not
		// answer must not advise --ack GATE-SECRET-UNREACHABLE: with the
		// gate counted as given its message leaves that out.
		run.Acked[plan.GateSecretUnreachable] = true
		step := &graph.Step{ID: id, Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: spec.Vaults[ref.Vault], Ref: *ref}}
		_, err := bk.Kinds[plan.PhaseSecrets].Plan(ctx, step, run)
		if err != nil {
			err = fmt.Errorf("its credential is in Vault store %s, which could not be read: %w", ref.Vault, err)
		}
		read[id] = err
		return err
	}
}

// pasteable prints the site commands the report advises. They name the
// operator's file with --config when site found it beside the PATHs
// rather than from the current directory: pasted here, the command
// would not find it.
func pasteable(config string) func(sub string, args ...string) string {
	return func(sub string, args ...string) string {
		words := commandWords(sub, args...)
		if here, err := compiler.FindConfig("", nil); configFlag == "" && (err != nil || here != config) {
			words = append(words, "--config", shellQuote(config))
		}
		return strings.Join(words, " ")
	}
}
