package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { register(newGraphCmd) }

func newGraphCmd() *cobra.Command {
	var (
		only    string
		targets []string
	)
	cmd := &cobra.Command{
		Use:   "graph [PATH ...]",
		Short: "Print the step graph as Graphviz DOT",
		Long: `graph loads the specs in PATH (./tenants/... when none) and prints the
ensure-steps site would run, clustered by phase, with an edge from each
step to the steps that wait for it. It observes nothing.

  site graph tenants/office1.cue | dot -Tsvg > office1.svg
  site graph --only dns ./tenants/...     DNS steps and the secrets they read
  site graph --target 'vm/*/keys' tenants/sjc.cue   one VM's step, on any host

The node names are the step IDs that --target takes in site graph, diff
and apply.

Exit codes: 0 printed, 1 an invalid spec or flag.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			phases, err := parseOnly(only)
			if err != nil {
				return withCode(exitError, err)
			}
			load := budget(cmd)
			load.Warn = warnTo(cmd.ErrOrStderr())
			g, err := loadGraph(args, phases, parseTargets(targets), load, nil)
			if err != nil {
				return withCode(exitError, err)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), g.DOT())
			return err
		},
	}
	cmd.Flags().StringVar(&only, "only", "", "keep only these phases, comma-separated: secrets, network, storage, vm, dns")
	cmd.Flags().StringArrayVar(&targets, "target", nil, targetFlagHelp)
	completeScope(cmd)
	addCacheFlag(cmd)
	return cmd
}
