package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/backends/lease"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newUndoCmd) }

func newUndoCmd() *cobra.Command {
	var o applyOptions
	var id string
	cmd := &cobra.Command{
		Use:   "undo [--id ID] PATH",
		Short: "Plan and apply the inverse of an apply from the journal",
		Long: `undo puts back what one apply of the tenant in PATH changed (the newest
in its journal, or --id ID from site history) as it was before: DNS
record sets and SOA fields; a VM's memory, vcpus, autostart and running;
a network's mode, cidr, bridge and autostart. A VM or network the apply
created is removed behind its usual gate. It plans against what is live
now: the plan is shown, and gates, --ack, --restart and --yes work as in
site apply. Refused and named: what someone changed since that apply,
changes the spec would make beyond the undo, and a VM or network the
apply removed (its data is gone). --only dns undoes the DNS part alone.
The spec is not changed: revert it too, or the next apply redoes it.

Exit codes: as site apply's. See site help undo.`,
		Example: `  site history tenants/office1.cue
  site undo tenants/office1.cue
  site undo --id 20261207T182526.042Z-3F9A1C0B tenants/office1.cue --yes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("name the tenant's spec: site undo tenants/office1.cue")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.format = "text"
			o.lockTimeout, o.leaseTimeout = 0, lease.DefaultTimeout
			return runUndo(cmd, args, o, id)
		},
	}
	addBudgetFlags(cmd)
	f := &o.planFlags
	f.command = "undo"
	fs := cmd.Flags()
	fs.StringVar(&id, "id", "", "the journal entry to undo (default: the newest)")
	fs.StringVar(&f.only, "only", "", "dns: undo only the DNS part of an apply")
	fs.StringArrayVar(&f.acks, "ack", nil, "acknowledge a gate, e.g. GATE-DNS-DELETE-MANY (repeatable)")
	fs.StringArrayVar(&f.restarts, "restart", nil, "restart TENANT/VM to take pending changes (GATE-VM-RESTART)")
	fs.BoolVar(&o.yes, "yes", false, "say yes to destructive changes (required without a terminal)")
	fs.IntVar(&f.parallelism, "parallelism", engine.DefaultParallelism, "how many steps run at once")
	fs.IntVar(&f.deleteThreshold, "delete-threshold", backends.DefaultDeleteManyPercent, deleteThresholdHelp)
	fs.IntVar(&f.updateThreshold, "update-threshold", backends.DefaultUpdateManyPercent, updateThresholdHelp)
	durationVar(fs, &f.requestTimeout, "request-timeout", backends.DefaultRequestTimeout, false, "a positive duration such as 30s",
		"give up on a silent server after this long")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, quietFlagHelp)
	completeScope(cmd)
	return cmd
}

// runUndo reads the entry to undo from the journal of PATH's tenant,
// then runs site apply's run with the undo's zones, VMs and networks as
// its scope (see
// applyOptions.undo).
func runUndo(cmd *cobra.Command, args []string, o applyOptions, id string) error {
	if o.only != "" && o.only != string(plan.PhaseDNS) {
		return withCode(exitError, fmt.Errorf("--only %s: site undo undoes a whole apply, or its DNS part alone (--only dns)", o.only))
	}
	g, err := loadGraph(args, nil, nil, budget(cmd), nil)
	if err != nil {
		return withCode(exitError, err)
	}
	tenants := scopeTenants(g)
	if len(tenants) != 1 {
		var names []string
		for _, t := range tenants {
			names = append(names, t.Name)
		}
		return withCode(exitError, fmt.Errorf("site undo undoes one tenant's apply, and PATH holds %d tenants (%s): name one tenant's spec file", len(tenants), strings.Join(names, ", ")))
	}
	t := tenants[0]
	run := engine.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	store, err := journalStore(cmd.Context(), t, bk, run, specDirs(args, g))
	if err != nil {
		return withCode(exitError, err)
	}
	u, err := journal.StartUndo(cmd.Context(), cmd.ErrOrStderr(), store, t.Name, id, o.only == string(plan.PhaseDNS))
	if err != nil {
		return withCode(exitError, err)
	}
	o.undo, o.only, o.targets = u, "", u.Targets()
	if u.DNSOnly() {
		o.only = string(plan.PhaseDNS)
	}
	return runApply(cmd, args, o)
}

// undoRewrite sets, for site undo, the record sets of its entry back
// in g; nothing for an apply.
func (o applyOptions) undoRewrite(g *graph.Graph) error {
	if o.undo == nil {
		return nil
	}
	return o.undo.Rewrite(g)
}

// undoCheck refuses, for site undo, a plan that would put back what
// someone changed since, or change more than the undo; nothing for an
// apply.
func (o applyOptions) undoCheck(obs *engine.Observation) error {
	if o.undo == nil {
		return nil
	}
	return o.undo.Check(obs.Plan, obs.Steps)
}

// undoCommand is the site undo command line that was run, for the
// messages that end with the command to run again.
func undoCommand(args []string, o applyOptions) string {
	words := append(commandWords("undo", args...), "--id", o.undo.Entry.ID)
	f := o.planFlags
	f.targets, f.only = nil, ""
	if o.undo.Partial {
		f.only = string(plan.PhaseDNS)
	}
	return strings.Join(append(words, f.words()...), " ")
}
