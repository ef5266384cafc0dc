package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/backends/lease"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

func init() { register(newApplyCmd) }

// applyOptions are apply's flags, validated before anything is loaded.
type applyOptions struct {
	planFlags
	planFile    string
	format      string // --format: text or json (applyjson.go)
	yes         bool   // --yes: do not ask before destructive changes
	lockTimeout time.Duration
	// leaseTimeout bounds the wait for the DHCP leases of VMs that
	// publish address "lease".
	leaseTimeout time.Duration
	undo         *journal.Undo // site undo's (undo.go); nil for an apply
	journal      *applyJournal // records what the apply changed (journal.go)
}

func newApplyCmd() *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:     "apply [PATH ...]",
		Short:   "Converge the live systems to the specs",
		Long:    longHelp("apply"),
		Example: examples("apply"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, args, o)
		},
	}
	addBudgetFlags(cmd)
	o.add(cmd, planFlagHelp{
		only:            "apply only these phases: secrets,network,storage,vm,dns",
		ack:             "acknowledge a gate, e.g. GATE-DNS-OVERWRITE (repeatable)",
		parallelism:     "how many steps run at once",
		restart:         "restart TENANT/VM to take pending changes (GATE-VM-RESTART)",
		deleteThreshold: deleteThresholdHelp,
		updateThreshold: updateThresholdHelp,
	})
	cmd.Flags().BoolVar(&o.yes, "yes", false, "say yes to destructive changes (required without a terminal)")
	cmd.Flags().StringVar(&o.format, "format", "text", applyFormatHelp)
	_ = cmd.RegisterFlagCompletionFunc("format", completeWords("text\tthe plan and the report", "json\tthe JSON plan with each step's outcome"))
	cmd.Flags().StringVar(&o.planFile, "plan", "", "apply this plan saved by site diff --out, if still fresh")
	durationVar(cmd.Flags(), &o.lockTimeout, "lock-timeout", 0, true,
		"0 to fail at once, or how long to wait, such as 5m",
		"wait this long for another run's lock (0: fail now)")
	durationVar(cmd.Flags(), &o.leaseTimeout, "lease-timeout", lease.DefaultTimeout, false,
		"a positive duration such as 2m",
		"wait this long for a VM's DHCP lease")
	return cmd
}

func runApply(cmd *cobra.Command, args []string, o applyOptions) error {
	phases, err := parseOnly(o.only)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := checkApplyFormat(o.format); err != nil {
		return withCode(exitError, err)
	}
	targets := parseTargets(o.targets)
	if p := savedPlanArg(args); p != "" && o.planFile == "" {
		return withCode(exitError, fmt.Errorf("%s is a plan saved by site diff --out, not a spec: apply it with site apply --plan %s", p, words.ShellQuote(p)))
	}
	var saved *plan.Plan
	if o.planFile != "" {
		// The plan brings its paths, scope and options; what the
		// command line adds must agree with them.
		if saved, err = o.readSaved(cmd.Flags(), args, phases, targets); err != nil {
			return withCode(exitError, err)
		}
		args, phases, targets = saved.Spec.Paths, saved.Only, saved.Targets
		o.fromSaved(saved.Options)
	}
	run, err := o.newRun()
	if err != nil {
		return withCode(exitError, err)
	}
	if saved != nil {
		// The acks that deferred a step it shows (checked by readSaved).
		maps.Copy(run.Acked, saved.Options.Settings().Acked)
	}

	bk := providers.Open(run)
	bk.LeaseTimeout, bk.LeaseProgress = o.leaseTimeout, run.Say
	// The locks are held from before the first slow read to the end.
	s, prog := openSession(cmd, args, bk, run, o.planFlags, engine.Options{Apply: true, Command: applyCommand(args, o), LockWait: o.lockTimeout})
	defer s.Close()
	// Watching from before the load (a hung host must not hang a Ctrl-C
	// while the load lists what the tenants no longer declare) and the
	// locks, and stopped before the session releases them (defers run
	// last first): a second interrupt releases them itself.
	defer watchInterrupts(prog, nil, nil, s)()
	load := budget(cmd)
	load.Warn = warnTo(cmd.ErrOrStderr())
	g, err := o.scope(args, phases, targets, load, s.DiscoverLocked(targets))
	if err = cmp.Or(s.LockErr(), err); err != nil {
		return withCode(exitError, err)
	}
	if err := o.undoRewrite(g); err != nil {
		return withCode(exitError, err)
	}
	if err := s.Check(g); err != nil {
		return withCode(exitError, err)
	}
	if err := s.Lock(g); err != nil {
		return withCode(exitError, err)
	}
	obs, err := s.Plan(g)
	if err != nil {
		return withCode(exitError, err)
	}
	obs.Scope(phases, targets, g)
	if saved != nil {
		if err := plan.CheckFresh(saved, obs.Plan); err != nil {
			return withCode(exitError, err)
		}
	}
	if err := o.undoCheck(obs); err != nil {
		return withCode(exitError, err)
	}
	o.journal = newApplyJournal(args, g, applyCommand(args, o), o.undo, bk, run)
	return carryOut(cmd, args, o, s, g, obs, run)
}

// carryOut prints the plan, checks the gates, asks on a terminal when
// it is destructive, applies it and prints the report.
func carryOut(cmd *cobra.Command, args []string, o applyOptions, s *engine.Session, g *graph.Graph, obs *engine.Observation, run *backends.Run) (err error) {
	stdout := cmd.OutOrStdout()
	color := useColor(stdout)
	var rep *engine.Report
	if o.format == "json" {
		// One JSON object in place of the plan and the report, whatever the end.
		defer func() { err = writeApplyJSON(stdout, obs.Plan, run.Acked, rep, err) }()
	} else if err := obs.Plan.WriteText(stdout, plan.TextOptions{Color: color, Acked: run.Acked, Quiet: o.quiet}); err != nil {
		return withCode(exitError, err)
	}
	if !obs.Plan.HasChanges() && len(obs.Plan.Blocked) == 0 {
		if err := obs.Plan.ProblemsError(false); err != nil {
			return withCode(exitError, err)
		}
		return nil
	}
	// Gates first: a run they stop is not worth a question.
	err = obs.Check(g, run.Acked)
	if err == nil {
		err = o.confirm(obs.Plan, run.Acked, applyCommand(args, o), cmd.InOrStdin(), cmd.ErrOrStderr())
	}
	if err == nil {
		rep, err = s.Apply(g, obs)
		o.journal.record(cmd.Context(), cmd.ErrOrStderr(), obs, rep)
	}
	var gm *engine.GatesMissingError
	var be *engine.BlockedError
	var ue *engine.UnconfirmedError
	switch {
	case errors.As(err, &be):
		// The plan above lists each step and why, once.
		return withCode(exitError, fmt.Errorf("%s could not be planned, so nothing was changed: see \"Not planned\" above; fix what each reason names and run again, or leave those steps out with --only or --target", words.Count(len(be.Blocked), "step")))
	case errors.As(err, &gm):
		gm.Command = applyCommand(args, o)
		if !stdinIsTerminal() && len(o.unanswered(obs.Plan, nil, false)) > 0 {
			// The next run would stop again for want of --yes.
			gm.Then = "--yes"
		}
		return withCode(exitGated, gm)
	case errors.As(err, &ue):
		return withCode(exitGated, ue)
	case err != nil:
		return withCode(exitError, err)
	}
	if o.format != "json" {
		fmt.Fprintln(stdout)
		if err := reportShown(rep, o.quiet).WriteText(stdout, color); err != nil {
			return withCode(exitError, err)
		}
	}
	if rep.Interrupted {
		return withCode(exitError, errors.New("apply was interrupted (see the report above for what was applied and what was not started): run site apply again to converge the rest"))
	}
	if !rep.OK() {
		return withCode(exitError, errors.New("apply did not converge (see the report above): fix the cause and run site apply again; it converges from any partial state"))
	}
	if err := obs.Plan.ProblemsError(false); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

// applyCommand rebuilds the command line that was run, so the message
// about missing gates can end with the exact command that acknowledges
// them (the missing --ack flags are appended by the error itself).
func applyCommand(args []string, o applyOptions) string {
	if o.undo != nil {
		return undoCommand(args, o)
	}
	argv := commandWords("apply", args...)
	var planFlag []string
	if o.planFile != "" {
		planFlag = []string{"--plan", words.ShellQuote(o.planFile)}
	}
	if o.format != "text" && o.format != "" {
		planFlag = append(planFlag, "--format", o.format)
	}
	return strings.Join(append(argv, o.words(planFlag...)...), " ")
}
