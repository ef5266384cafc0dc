package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newApplyCmd) }

// applyOptions are apply's flags, validated before anything is loaded.
type applyOptions struct {
	planFlags
	planFile    string
	lockTimeout time.Duration
}

func newApplyCmd() *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:   "apply [PATH ...]",
		Short: "Converge the live systems to the specs",
		Long: `apply observes every live system the specs in PATH describe (./tenants/...
when none), prints the plan as site diff does, and carries it out.

Before it changes anything, apply checks every gate in scope: a change
that replaces foreign data, deletes many records, restarts or destroys
something needs its gate acknowledged with --ack GATE-ID. When one is
missing apply changes nothing, names each gate and the changes behind
it, prints the command that acknowledges them, and exits 3. A step that
could not be observed stops apply too (exit 1), unless its gate (e.g.
GATE-SECRET-UNREACHABLE) is acknowledged: then it and the steps that
depend on it are deferred and the rest goes on.

--target PATTERN (repeatable) keeps only the steps whose ID matches (as
site graph names them; * also matches /, e.g. 'vm/*/keys'), plus the
secret steps they need, so a run can leave a live guest or an
unreachable server alone. With --only, a step must pass both; a pattern
that matches no step in scope is an error listing the steps in scope.

Steps run in dependency order, --parallelism at a time. When a step
fails, the steps that depend on it are skipped and independent ones go
on; every applied step is observed again and anything not converged is
reported. A re-run converges from any partial state.

  site apply tenants/sjc.cue
  site apply --only dns tenants/sjc.cue
  site apply --target dns/sjc.example.net. tenants/sjc.cue
  site apply tenants/sjc.cue --ack GATE-DNS-OVERWRITE
  site diff --out plan.json tenants/sjc.cue && site apply --plan plan.json tenants/sjc.cue
  site apply --restart office1/files --ack GATE-VM-RESTART tenants/office1.cue

With --plan, apply observes again and refuses (exit 1) when anything the
saved plan covered has changed since, on the live systems or in the
spec: "the plan is stale". It takes the plan's --only and --target;
giving others is refused.

Each tenant in scope is locked for the whole apply (in its PowerDNS
zones' metadata, else in a file beside its spec): a second apply of the
same tenant waits --lock-timeout (default 0), then exits 1 naming the
holder's host, pid, start time and command. The lock's lease runs out
a minute after a holder dies; site unlock TENANT breaks it sooner.

Exit codes: 0 converged, 1 an error or a step that failed or did not
converge, or the tenant locked by another apply, 3 a gate was not
acknowledged (nothing was changed).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, args, o)
		},
	}
	o.add(cmd, planFlagHelp{
		only:            "apply only these phases, comma-separated: secrets, network, vm, dns",
		ack:             "acknowledge a gate, e.g. GATE-DNS-OVERWRITE (repeatable)",
		parallelism:     "how many steps run at once",
		restart:         "restart TENANT/VM so pending changes take effect (repeatable; needs GATE-VM-RESTART)",
		deleteThreshold: deleteThresholdHelp,
	})
	cmd.Flags().StringVar(&o.planFile, "plan", "", "apply only if a fresh observation still matches this plan saved by site diff --out")
	cmd.Flags().DurationVar(&o.lockTimeout, "lock-timeout", 0, "how long to wait for another apply of the same tenant to finish (e.g. 5m); 0 fails at once, naming the holder")
	return cmd
}

func runApply(cmd *cobra.Command, args []string, o applyOptions) error {
	phases, err := parseOnly(o.only)
	if err != nil {
		return withCode(exitError, err)
	}
	run, err := o.newRun()
	if err != nil {
		return withCode(exitError, err)
	}

	targets := parseTargets(o.targets)
	var saved *plan.Plan
	if o.planFile != "" {
		if saved, err = o.readSaved(phases, targets); err != nil {
			return withCode(exitError, err)
		}
		phases, targets = saved.Only, saved.Targets
	}

	g, err := o.scope(args, phases, targets)
	if err != nil {
		return withCode(exitError, err)
	}
	defer interruptible(cmd)()
	ctx := cmd.Context()
	bk := openBackends(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	// Held from before the first observation to the end, so no other
	// apply of these tenants changes what this one observed and acts on.
	release, err := lockTenants(ctx, g, bk, run, applyCommand(args, o), o.lockTimeout)
	if err != nil {
		return withCode(exitError, err)
	}
	defer func() {
		if err := release(); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "site:", err)
		}
	}()
	eng := newEngine(bk, o.parallelism, cmd.ErrOrStderr())
	obs, err := eng.Plan(ctx, g, run)
	if err != nil {
		return withCode(exitError, fmt.Errorf("observing was interrupted (%w): nothing was changed", err))
	}
	obs.Plan.Only = phases
	obs.Plan.Targets = targets
	if saved != nil {
		if err := plan.CheckFresh(saved, obs.Plan); err != nil {
			var se *plan.StalePlanError
			if errors.As(err, &se) && se.Has(plan.StaleChangesDiffer) {
				err = fmt.Errorf("%w (or site diff --out was given other --delete-threshold or --restart flags than apply: give both the same)", err)
			}
			return withCode(exitError, err)
		}
	}
	stdout := cmd.OutOrStdout()
	color := useColor(stdout)
	if err := obs.Plan.WriteText(stdout, plan.TextOptions{Color: color, Acked: run.Acked}); err != nil {
		return withCode(exitError, err)
	}
	if !obs.Plan.HasChanges() && len(obs.Plan.Blocked) == 0 {
		return nil
	}
	rep, err := eng.Apply(ctx, g, obs, run)
	var gm *engine.GatesMissingError
	switch {
	case errors.As(err, &gm):
		gm.Command = applyCommand(args, o)
		return withCode(exitGated, gm)
	case err != nil:
		return withCode(exitError, err)
	}
	fmt.Fprintln(stdout)
	if err := writeReport(stdout, rep, color); err != nil {
		return withCode(exitError, err)
	}
	if !rep.OK() {
		return withCode(exitError, errors.New("apply did not converge (see the report above): fix the cause and run site apply again; it converges from any partial state"))
	}
	return nil
}

// readSaved reads --plan and checks that --only and --target, when
// given, name the scope it was saved with; apply then takes that scope.
func (o applyOptions) readSaved(phases []plan.Phase, targets []string) (*plan.Plan, error) {
	saved, err := readPlan(o.planFile)
	if err != nil {
		return nil, err
	}
	if o.only != "" && !slices.Equal(phases, saved.Only) {
		return nil, fmt.Errorf("--only %s differs from the scope the plan %s was saved with (%s): drop --only, or run site diff --out again with it",
			o.only, o.planFile, describeOnly(saved.Only))
	}
	if len(targets) > 0 && !slices.Equal(targets, saved.Targets) {
		return nil, fmt.Errorf("%s differs from the scope the plan %s was saved with (%s): drop --target, or run site diff --out again with it",
			describeTargets(targets), o.planFile, describeTargets(saved.Targets))
	}
	return saved, nil
}

// readPlan loads a plan saved by site diff --out.
func readPlan(path string) (*plan.Plan, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--plan %s: no such file; save a plan first with: site diff --out %s PATH ...", path, shellQuote(path))
	}
	if err != nil {
		return nil, fmt.Errorf("--plan: %w", err)
	}
	defer f.Close()
	p, err := plan.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", path, err)
	}
	return p, nil
}

func describeOnly(phases []plan.Phase) string {
	if len(phases) == 0 {
		return "every phase"
	}
	s := make([]string, len(phases))
	for i, p := range phases {
		s[i] = string(p)
	}
	return "--only " + strings.Join(s, ",")
}

func describeTargets(targets []string) string {
	if len(targets) == 0 {
		return "every step"
	}
	words := make([]string, len(targets))
	for i, t := range targets {
		words[i] = "--target " + shellQuote(t)
	}
	return strings.Join(words, " ")
}

// applyCommand rebuilds the command line that was run, so the message
// about missing gates can end with the exact command that acknowledges
// them (the missing --ack flags are appended by the error itself).
func applyCommand(args []string, o applyOptions) string {
	words := []string{"site", "apply"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	var planFlag []string
	if o.planFile != "" {
		planFlag = []string{"--plan", shellQuote(o.planFile)}
	}
	return strings.Join(append(words, o.words(planFlag...)...), " ")
}
