package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newUnlockCmd) }

func newUnlockCmd() *cobra.Command {
	var acks []string
	cmd := &cobra.Command{
		Use:     "unlock TENANT [PATH ...] [--ack GATE-LOCK-BREAK]",
		Short:   "Break a tenant's apply lock (dry run unless acknowledged)",
		Long:    longHelp("unlock"),
		Example: examples("unlock"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("name the tenant: site unlock office1 [PATH ...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			acked, err := plan.AcksGate("unlock", acks, plan.GateLockBreak)
			if err != nil {
				return withCode(exitError, err)
			}
			return runUnlock(cmd, args[0], args[1:], acked)
		},
	}
	cmd.Flags().StringArrayVar(&acks, "ack", nil, "GATE-LOCK-BREAK: remove the lock listed (else change nothing)")
	_ = cmd.RegisterFlagCompletionFunc("ack", completeGates("unlock"))
	cmd.ValidArgsFunction = completeUnlock
	addBudgetFlags(cmd)
	return cmd
}

func runUnlock(cmd *cobra.Command, tenant string, paths []string, acked bool) error {
	g, err := loadGraph(paths, nil, nil, budget(cmd), nil)
	if err != nil {
		return withCode(exitError, err)
	}
	var names []string
	for _, t := range scopeTenants(g) {
		names = append(names, t.Name)
		if t.Name != tenant {
			continue
		}
		return unlockTenant(cmd, t, g, paths, acked)
	}
	// A tenant without a zone, VM or network has no steps, so it is not
	// among these, and no apply ever locks it.
	loaded := strings.Join(names, ", ")
	if loaded == "" {
		loaded = "none"
	}
	return withCode(exitError, fmt.Errorf("no tenant %s with a zone, VM or network in the specs loaded (%s), and only those are ever locked: name one of them, or give the PATH of its spec", tenant, loaded))
}

// unlockTenant lists who holds tenant t's apply lock and, acked,
// breaks it.
func unlockTenant(cmd *cobra.Command, t *model.Tenant, g *graph.Graph, paths []string, acked bool) error {
	run := engine.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	s, err := bk.LockStore(cmd.Context(), t, run, specDirs(paths, g))
	if err != nil {
		return withCode(exitError, err)
	}
	held, err := lock.Unlock(cmd.Context(), cmd.OutOrStdout(), t.Name, s, acked, time.Now())
	if err != nil {
		return withCode(exitError, err)
	}
	if held > 0 && !acked {
		words := commandWords("unlock", append([]string{t.Name}, paths...)...)
		return withCode(exitGated, fmt.Errorf("GATE-LOCK-BREAK is not acknowledged, so nothing was changed: to break the lock, run: %s --ack %s", strings.Join(words, " "), plan.GateLockBreak))
	}
	return nil
}
