package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/lease"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newApplyCmd) }

// applyOptions are apply's flags, validated before anything is loaded.
type applyOptions struct {
	planFlags
	planFile    string
	yes         bool // --yes: do not ask before destructive changes
	lockTimeout time.Duration
	// leaseTimeout bounds the wait for the DHCP leases of VMs that
	// publish address "lease".
	leaseTimeout time.Duration
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
could not be planned (not observed, or observed and refused) stops
apply too: exit 1, or 3 when every such step waits for a gate (e.g.
GATE-SECRET-UNREACHABLE, no address of a secret store answered). With
that gate acknowledged, they and the steps that depend on them are
deferred and the rest goes on.

--target PATTERN (repeatable) keeps only the steps whose ID matches (as
site graph names them; * also matches /, e.g. 'vm/*/keys'), plus the
steps they need (the secrets they read; a VM's networks, storage pools
and base images), so a run can leave a live guest or an
unreachable server alone. With --only, a step must pass both; a pattern
that matches no step in scope is an error listing the steps in scope,
and a VM written as --restart writes it (office1/files) or a zone
without dns/ (example.org.) is told the step ID it meant.

Steps run in dependency order, --parallelism at a time. When a step
fails, the steps that depend on it are skipped and independent ones go
on; every applied step is observed again and anything not converged is
reported. A re-run converges from any partial state.

  site apply tenants/sjc.cue
  site apply --only dns tenants/sjc.cue
  site apply --target dns/sjc.example.net. tenants/sjc.cue
  site apply tenants/sjc.cue --ack GATE-DNS-OVERWRITE
  site diff --out plan.json tenants/sjc.cue && site apply --plan plan.json
  site apply --restart office1/files --ack GATE-VM-RESTART tenants/office1.cue

With --plan, apply needs nothing else: the plan names its spec files,
scope (--only, --target) and options (--restart, --delete-threshold,
--update-threshold, the acks that deferred a step); other values are refused, and so is
a plan whose options loosen apply's checks (a --delete-threshold above
the default, a --restart, an ack) unless the command line gives them
too, as a plan file is anyone's to write; nor do its paths choose
site.cue: without --config, one beside them is read only where it lies
in the current directory's tree. It refuses
(exit 1) a plan whose spec files changed since, naming the file, and
observes again to refuse one whose live systems changed: "the plan is
stale", naming for each step up to three records whose planned change
differs.

On a terminal, apply without --ack, --yes or --plan shows the plan and
asks "Type yes:" before changes that delete, overwrite, restart or
destroy; any other answer exits 1 having changed nothing. When stdin is
not a terminal nothing is asked.

Ctrl-C (or SIGTERM) lets the steps in flight finish, starts nothing
new, and prints the report with each step's true state ("applied part
1 of 3", "not started"); a second one exits with 130 within 2s, naming
what may be half-done, after releasing the locks of the tenants none
of whose writes can still land (one whose step is still in flight, or
whose server does not answer the release, keeps its lock until the
lease runs out, and site says until when; so does an entry a request
taking the lock may have written and site could not remove). Ctrl-C while reading where
the lock stands, or waiting for another apply's lock (--lock-timeout),
ends the read or the wait, changing nothing.

A VM that publishes address "lease" has its records planned with the
address its first NIC holds in the network's DHCP leases. A guest with
no lease yet (a VM this apply creates) shows "address known after the
guest takes its DHCP lease"; apply then waits for the lease, saying so
on stderr, up to --lease-timeout (default 2m), and writes the address.

Each tenant in scope is locked for the whole apply: in a Vault KV v2 secret
(site-locks/TENANT) when a vault in site.cue holds one of its DNS
credentials and answers, and in its PowerDNS zones' metadata; in a file beside its spec only
when neither holds it. A second apply of the same tenant waits
--lock-timeout (default 0), saying once whom it waits for, then exits 1
naming the holder's host, pid, start time and command. The lock's lease
runs out a minute after a holder dies; site unlock TENANT breaks it
sooner.

Exit codes: 0 converged, 1 an error, a step that failed or did not
converge, a question not answered "yes", an interrupted run, or the
tenant locked by another apply, 3 a
gate was not acknowledged (nothing was changed; an unreachable secret
store's GATE-SECRET-UNREACHABLE too), 130 a second
interrupt.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, args, o)
		},
	}
	addBudgetFlags(cmd)
	o.add(cmd, planFlagHelp{
		only:            "apply only these phases, comma-separated: secrets, network, storage, vm, dns",
		ack:             "acknowledge a gate, e.g. GATE-DNS-OVERWRITE (repeatable)",
		parallelism:     "how many steps run at once",
		restart:         "restart TENANT/VM so pending changes take effect (repeatable; needs GATE-VM-RESTART)",
		deleteThreshold: deleteThresholdHelp,
		updateThreshold: updateThresholdHelp,
	})
	cmd.Flags().BoolVar(&o.yes, "yes", false, "do not ask before destructive changes on a terminal (for scripts that run apply with a terminal attached)")
	cmd.Flags().StringVar(&o.planFile, "plan", "", "apply only if a fresh observation still matches this plan saved by site diff --out")
	durationVar(cmd.Flags(), &o.lockTimeout, "lock-timeout", 0, true,
		"0 to fail at once, or how long to wait, such as 5m",
		"how long to wait for another apply of the same tenant to finish (e.g. 5m); 0 fails at once, naming the holder")
	durationVar(cmd.Flags(), &o.leaseTimeout, "lease-timeout", lease.DefaultTimeout, false,
		"a positive duration such as 2m",
		`how long to wait for the DHCP lease of a VM that publishes address "lease" and has none yet`)
	return cmd
}

func runApply(cmd *cobra.Command, args []string, o applyOptions) error {
	phases, err := parseOnly(o.only)
	if err != nil {
		return withCode(exitError, err)
	}
	targets := parseTargets(o.targets)
	if p := savedPlanArg(args); p != "" && o.planFile == "" {
		return withCode(exitError, fmt.Errorf("%s is a plan saved by site diff --out, not a spec: apply it with site apply --plan %s", p, shellQuote(p)))
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
		for _, g := range saved.Options.Acks {
			run.Acked[g] = true
		}
	}

	bk := openBackends(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	eng, prog := newEngine(bk, o.parallelism, cmd.ErrOrStderr())
	prog.watchSlow(run)
	bk.leaseTimeout, bk.leaseProgress = o.leaseTimeout, func(s string) { prog.say("site: " + s) }
	// An interrupt cancels observing, which only reads (what the tenants
	// no longer declare, then the steps), and a wait for the lock; the
	// walk that writes keeps cmd's context and stops through run
	// (interrupt.go).
	// It carries the run, so its requests keep to --request-timeout.
	observing, stopObserving := context.WithCancel(backends.WithRun(cmd.Context(), run))
	defer stopObserving()
	locks := &tenantLocks{} // its scope once the graph is known
	defer func() {
		if err := locks.release(context.WithoutCancel(cmd.Context())); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "site:", err)
		}
	}()
	// Watching from before the load (a hung host must not hang a Ctrl-C
	// while the load lists what the tenants no longer declare) and the
	// locks, and stopped before they are released (defers run last
	// first): a second interrupt releases them itself.
	defer watchInterrupts(prog, run, stopObserving, locks)()
	load := budget(cmd)
	load.Warn = warnTo(cmd.ErrOrStderr())
	g, err := o.scope(args, phases, targets, load, bk.discover(observing, prog.listing))
	if err != nil {
		return withCode(exitError, err)
	}
	if observing.Err() != nil {
		return withCode(exitError, errors.New("apply was interrupted before anything was observed: nothing was changed"))
	}
	// What the listing read was read without the locks.
	bk.forgetDiscovered()
	locks.setScope(g, backends.NewRedactor(g, run).Redact)
	// Held from before the first observation to the end, so no other
	// apply of these tenants changes what this one observed and acts on.
	if err := lockTenants(backends.WithRun(cmd.Context(), run), observing, g, bk, run, applyCommand(args, o), o.lockTimeout, prog, locks); err != nil {
		return withCode(exitError, err)
	}
	obs, err := eng.Plan(observing, g, run)
	if err != nil {
		return withCode(exitError, interruptedObserving(err, "nothing was changed"))
	}
	obs.Plan.Only = phases
	obs.Plan.Targets = targets
	obs.Plan.Prerequisites = g.Prerequisites()
	if saved != nil {
		if err := plan.CheckFresh(saved, obs.Plan); err != nil {
			return withCode(exitError, err)
		}
	}
	return carryOut(cmd, args, o, eng, g, obs, run)
}

// carryOut prints the plan, checks the gates, asks on a terminal when
// it is destructive, applies it and prints the report.
func carryOut(cmd *cobra.Command, args []string, o applyOptions, eng *engine.Engine, g *graph.Graph, obs *engine.Observation, run *backends.Run) error {
	stdout := cmd.OutOrStdout()
	color := useColor(stdout)
	if err := obs.Plan.WriteText(stdout, plan.TextOptions{Color: color, Acked: run.Acked}); err != nil {
		return withCode(exitError, err)
	}
	if !obs.Plan.HasChanges() && len(obs.Plan.Blocked) == 0 {
		if err := problemsError(obs.Plan.Problems, false); err != nil {
			return withCode(exitError, err)
		}
		return nil
	}
	// Gates first: a run they stop is not worth a question.
	err := obs.Check(g, run.Acked)
	if err == nil {
		err = o.confirm(obs.Plan, cmd.InOrStdin(), cmd.ErrOrStderr())
	}
	var rep *engine.Report
	if err == nil {
		rep, err = eng.Apply(cmd.Context(), g, obs, run)
	}
	var gm *engine.GatesMissingError
	var be *engine.BlockedError
	switch {
	case errors.As(err, &be):
		// The plan above lists each step and why, once.
		return withCode(exitError, fmt.Errorf("%s could not be planned, so nothing was changed: see \"Not planned\" above; fix what each reason names and run again, or leave those steps out with --only or --target", count(len(be.Blocked), "step")))
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
	if rep.Interrupted {
		return withCode(exitError, errors.New("apply was interrupted (see the report above for what was applied and what was not started): run site apply again to converge the rest"))
	}
	if !rep.OK() {
		return withCode(exitError, errors.New("apply did not converge (see the report above): fix the cause and run site apply again; it converges from any partial state"))
	}
	if err := problemsError(obs.Plan.Problems, false); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

// applyCommand rebuilds the command line that was run, so the message
// about missing gates can end with the exact command that acknowledges
// them (the missing --ack flags are appended by the error itself).
func applyCommand(args []string, o applyOptions) string {
	words := commandWords("apply", args...)
	var planFlag []string
	if o.planFile != "" {
		planFlag = []string{"--plan", shellQuote(o.planFile)}
	}
	return strings.Join(append(words, o.words(planFlag...)...), " ")
}
