package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
)

func init() { register(newHistoryCmd) }

func newHistoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history [PATH ...]",
		Short: "List the applies each tenant's journal keeps",
		Long: fmt.Sprintf(`history lists, for each tenant of the specs in PATH (./tenants/... when
none), the applies its journal keeps (the last %d), newest first: the
entry's id (what site undo --id takes), when, who, the commit of the
operator's repository, and the changes by action. The journal lives
where the tenant's apply lock does (site help locking). Read-only.

See site help undo.`, journal.Keep),
		Example: `  site history
  site history tenants/office1.cue`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd, args)
		},
	}
	addBudgetFlags(cmd)
	return cmd
}

func runHistory(cmd *cobra.Command, args []string) error {
	g, err := loadGraph(args, nil, nil, budget(cmd), nil)
	if err != nil {
		return withCode(exitError, err)
	}
	out := cmd.OutOrStdout()
	dirs := specDirs(args, g)
	run := backends.NewRun()
	bk := providers.Open(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	failed := false
	for i, t := range scopeTenants(g) {
		if i > 0 {
			fmt.Fprintln(out)
		}
		s, err := journalStore(cmd.Context(), t, bk, run, dirs)
		if err != nil {
			fmt.Fprintf(out, "# tenant %s: no journal\n", t.Name)
			fmt.Fprintln(cmd.ErrOrStderr(), "site:", err)
			failed = true
			continue
		}
		es, skipped, err := s.List(cmd.Context())
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "site:", err)
			failed = true
			continue
		}
		fmt.Fprintf(out, "# tenant %s (journal in %s)\n", t.Name, s.Where())
		writeHistory(out, es)
		for _, sk := range skipped {
			fmt.Fprintln(cmd.ErrOrStderr(), "site: note:", sk)
		}
	}
	if failed {
		return withCode(exitError, fmt.Errorf("some journals could not be read (see above)"))
	}
	return nil
}

// writeHistory writes es as a table, newest first.
func writeHistory(w io.Writer, es []journal.Entry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "no applies journalled")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tWHO\tCOMMIT\tCHANGES")
	for _, e := range es {
		commit := e.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit == "" {
			commit = "-"
		}
		changes := countsText(e.Counts())
		if e.Undoes != "" {
			changes += " (undoes " + e.Undoes + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Time.UTC().Format(time.RFC3339), whoOf(&e), commit, changes)
	}
	tw.Flush()
}

// countsText is "2 create, 1 update, 1 delete".
func countsText(n map[plan.Action]int) string {
	var parts []string
	for _, a := range []plan.Action{plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete, plan.ActionAdopt} {
		if n[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[a], a))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// whoOf is who ran e, as a journal file says it: escaped, never
// starting a line of its own.
func whoOf(e *journal.Entry) string { return visible.Short(e.Who) }
