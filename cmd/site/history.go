package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/model"
)

func init() { register(newHistoryCmd) }

func newHistoryCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "history [PATH ...]",
		Short: "List the applies each tenant's journal keeps",
		Long: fmt.Sprintf(`history lists, for each tenant of the specs in PATH (./tenants/... when
none), the applies its journal keeps (the last %d), newest first: the
entry's id (what site undo --id takes), when, who, the commit of the
operator's repository, and the changes by action. The journal lives
where the tenant's apply lock does (site help locking). Read-only.
--format json writes one array of every tenant's entries instead.

See site help undo.`, journal.Keep),
		Example: `  site history
  site history tenants/office1.cue
  site history --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd, args, format)
		},
	}
	addBudgetFlags(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", completeWords("text\ta table per tenant", "json\tone array of every tenant's entries"))
	return cmd
}

func runHistory(cmd *cobra.Command, args []string, format string) error {
	if format != "text" && format != "json" {
		return withCode(exitError, fmt.Errorf("--format %q: use text or json", format))
	}
	g, err := loadGraph(args, nil, nil, budget(cmd), nil)
	if err != nil {
		return withCode(exitError, err)
	}
	dirs := specDirs(args, g)
	run := engine.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	ok, err := journal.Histories(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), scopeTenants(g), func(t *model.Tenant) (journal.Store, error) {
		return journalStore(cmd.Context(), t, bk, run, dirs)
	}, format == "json")
	switch {
	case err != nil:
		return withCode(exitError, err)
	case !ok:
		return withCode(exitError, fmt.Errorf("some journals could not be read (see above)"))
	}
	return nil
}
