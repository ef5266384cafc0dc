package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

func init() { register(newLeftoversCmd) }

func newLeftoversCmd() *cobra.Command {
	var format, provider string
	cmd := &cobra.Command{
		Use:   "leftovers [PATH ...]",
		Short: "List what site marked that no spec declares any more (read-only)",
		Long: `leftovers answers "what did site mark that no spec declares any more?",
which no diff or apply looks at. Only reading, it lists the zones of each
provider site.cue declares and reads those no tenant declares there, the
domains and networks on each libvirt host that carry site's owner marker
and no tenant declares, and uploads that did not finish. Each leftover is
named with its owner tenant and the command that removes it.

Exit codes: 0 nothing left over, 2 something is left over, 1 an error
(a provider, zone or host not read is never reported as empty).
--provider NAME reads only that provider (and no libvirt host).
See site help leftovers.`,
		Example: `  site leftovers
  site leftovers --provider pdns
  site leftovers --format json ./tenants/...`,
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
	spec, config, alone, err := loadForLeftovers(args, load)
	if err != nil {
		return withCode(exitError, err)
	}
	op, err := readOperator(config)
	if err != nil {
		return withCode(exitError, err)
	}
	in := leftovers.Input{Tenants: spec.Tenants, Providers: op.Providers(), Hosts: op.Hosts(), Images: op.Images(), Granted: op.Grants, Grantees: op.Grantees(), NoTenantFile: alone}
	if provider != "" {
		if in, err = onlyProvider(in, provider, config); err != nil {
			return withCode(exitError, err)
		}
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

// onlyProvider narrows in to --provider NAME: that provider of the
// operator's file config, and no host.
func onlyProvider(in leftovers.Input, name, config string) (leftovers.Input, error) {
	p, ok := in.Providers[name]
	if !ok {
		names := slices.Sorted(maps.Keys(in.Providers))
		msg := fmt.Sprintf("--provider %s: %s declares no provider %s", name, config, name)
		if near := spelling.Nearest(name, names); near != "" {
			msg += ": did you mean " + near + "?"
		}
		return in, fmt.Errorf("%s (its providers: %s)", msg, cmp.Or(strings.Join(names, ", "), "none"))
	}
	in.Providers = map[string]model.Provider{name: p}
	in.Hosts, in.Images = nil, nil
	return in, nil
}
