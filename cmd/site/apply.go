package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newApplyCmd) }

// applyOptions are apply's flags, validated before anything is loaded.
type applyOptions struct {
	only            string
	targets         []string
	acks            []string
	planFile        string
	parallelism     int
	restarts        []string
	deleteThreshold int
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

Exit codes: 0 converged, 1 an error or a step that failed or did not
converge, 3 a gate was not acknowledged (nothing was changed).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, args, o)
		},
	}
	addBudgetFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.only, "only", "", "apply only these phases, comma-separated: secrets, network, vm, dns")
	f.StringArrayVar(&o.targets, "target", nil, targetFlagHelp)
	f.StringArrayVar(&o.acks, "ack", nil, "acknowledge a gate, e.g. GATE-DNS-OVERWRITE (repeatable)")
	f.StringVar(&o.planFile, "plan", "", "apply only if a fresh observation still matches this plan saved by site diff --out")
	f.IntVar(&o.parallelism, "parallelism", backends.DefaultParallelism, "how many steps run at once")
	f.StringArrayVar(&o.restarts, "restart", nil, "restart TENANT/VM so pending changes take effect (repeatable; needs GATE-VM-RESTART)")
	f.IntVar(&o.deleteThreshold, "delete-threshold", 30, "percent of our records in a zone (of 10 or more) that may be deleted without GATE-DNS-DELETE-MANY")
	return cmd
}

func runApply(cmd *cobra.Command, args []string, o applyOptions) error {
	phases, err := parseOnly(o.only)
	if err != nil {
		return withCode(exitError, err)
	}
	run := backends.NewRun()
	if err := parseAcks(run, o.acks); err != nil {
		return withCode(exitError, err)
	}
	if err := planOptions(run, o.restarts, o.deleteThreshold); err != nil {
		return withCode(exitError, err)
	}
	if o.parallelism < 1 {
		return withCode(exitError, fmt.Errorf("--parallelism %d: use 1 or more", o.parallelism))
	}

	targets := parseTargets(o.targets)
	var saved *plan.Plan
	if o.planFile != "" {
		if saved, err = readPlan(o.planFile); err != nil {
			return withCode(exitError, err)
		}
		if o.only != "" && !slices.Equal(phases, saved.Only) {
			return withCode(exitError, fmt.Errorf("--only %s differs from the scope the plan %s was saved with (%s): drop --only, or run site diff --out again with it",
				o.only, o.planFile, describeOnly(saved.Only)))
		}
		phases = saved.Only
		if len(targets) > 0 && !slices.Equal(targets, saved.Targets) {
			return withCode(exitError, fmt.Errorf("%s differs from the scope the plan %s was saved with (%s): drop --target, or run site diff --out again with it",
				describeTargets(targets), o.planFile, describeTargets(saved.Targets)))
		}
		targets = saved.Targets
	}

	g, err := loadGraph(args, phases, targets, budget(cmd))
	if err != nil {
		return withCode(exitError, err)
	}
	if err := checkRestarts(g, o.restarts); err != nil {
		return withCode(exitError, err)
	}
	defer interruptible(cmd)()
	ctx := cmd.Context()
	eng := newEngine(o.parallelism, cmd.ErrOrStderr())
	obs, err := eng.Plan(ctx, g, run)
	if err != nil {
		return withCode(exitError, fmt.Errorf("observing was interrupted (%w): nothing was changed", err))
	}
	obs.Plan.Only = phases
	obs.Plan.Targets = targets
	if saved != nil {
		if err := backends.CheckFresh(saved, obs.Plan); err != nil {
			var se *backends.StalePlanError
			if errors.As(err, &se) && slices.ContainsFunc(se.Details, func(d string) bool { return strings.Contains(d, "plans other changes now") }) {
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
	var gm *backends.GatesMissingError
	switch {
	case errors.As(err, &gm):
		gm.Command = applyCommand(args, o)
		return withCode(exitGated, gm)
	case err != nil:
		return withCode(exitError, err)
	}
	fmt.Fprintln(stdout)
	if err := rep.WriteText(stdout, color); err != nil {
		return withCode(exitError, err)
	}
	if !rep.OK() {
		return withCode(exitError, errors.New("apply did not converge (see the report above): fix the cause and run site apply again; it converges from any partial state"))
	}
	return nil
}

// planOptions checks --restart and --delete-threshold and sets them on
// run. diff takes them too, so that the plan it shows (and saves for
// apply --plan) is the one apply with the same flags carries out.
// parseAcks records the --ack gate ids in run, refusing unknown ones (a
// misspelt ack would otherwise be silently ignored).
func parseAcks(run *backends.Run, acks []string) error {
	for _, a := range acks {
		g, err := plan.ParseGate(a)
		if err != nil {
			if up, uerr := plan.ParseGate(strings.ToUpper(a)); uerr == nil {
				return fmt.Errorf("--ack %s: gate ids are upper case: --ack %s", a, up)
			}
			return fmt.Errorf("--ack: %w", err)
		}
		run.Acked[g] = true
	}
	return nil
}

func planOptions(run *backends.Run, restarts []string, deleteThreshold int) error {
	for _, r := range restarts {
		tenant, vm, ok := strings.Cut(r, "/")
		if !ok || tenant == "" || vm == "" || strings.Contains(vm, "/") {
			return fmt.Errorf("--restart %q: name a VM as TENANT/VM, e.g. --restart office1/files", r)
		}
		run.Restart[r] = true
	}
	if deleteThreshold < 0 || deleteThreshold > 100 {
		return fmt.Errorf("--delete-threshold %d: use a percentage from 0 to 100", deleteThreshold)
	}
	run.DeleteManyPercent = deleteThreshold
	return nil
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

// checkRestarts refuses a --restart that names no VM in scope: like a
// misspelt --ack, it would otherwise be silently ignored, and the guest
// the user meant would keep running on its old definition.
func checkRestarts(g *graph.Graph, restarts []string) error {
	if len(restarts) == 0 {
		return nil
	}
	var inScope []string
	have := map[string]bool{}
	for _, s := range g.Steps {
		if s.VM != nil {
			name := s.VM.Tenant + "/" + s.VM.Name
			have[name] = true
			inScope = append(inScope, name)
		}
	}
	sort.Strings(inScope)
	for _, r := range restarts {
		if have[r] {
			continue
		}
		if len(inScope) == 0 {
			return fmt.Errorf("--restart %s: no VM is in scope (check the spec paths, --only and --target)", r)
		}
		return fmt.Errorf("--restart %s: no such VM in scope; the VMs in scope are %s", r, strings.Join(inScope, ", "))
	}
	return nil
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
	if o.only != "" {
		words = append(words, "--only", shellQuote(o.only))
	}
	for _, t := range o.targets {
		words = append(words, "--target", shellQuote(t))
	}
	if o.planFile != "" {
		words = append(words, "--plan", shellQuote(o.planFile))
	}
	if o.parallelism != backends.DefaultParallelism {
		words = append(words, "--parallelism", strconv.Itoa(o.parallelism))
	}
	if o.deleteThreshold != 30 {
		words = append(words, "--delete-threshold", strconv.Itoa(o.deleteThreshold))
	}
	for _, r := range o.restarts {
		words = append(words, "--restart", shellQuote(r))
	}
	for _, a := range o.acks {
		words = append(words, "--ack", a)
	}
	return strings.Join(words, " ")
}
