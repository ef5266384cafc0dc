package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newGraphCmd) }

func newGraphCmd() *cobra.Command {
	var (
		only    string
		targets []string
	)
	cmd := &cobra.Command{
		Use:     "graph [PATH ...]",
		Short:   "Print the step graph as Graphviz DOT",
		Long:    longHelp("graph"),
		Example: examples("graph"),
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
			if _, err := fmt.Fprint(cmd.OutOrStdout(), g.DOT()); err != nil {
				return err
			}
			if len(phases) > 0 && len(g.Steps) == 0 {
				// An empty graph is valid DOT, and reads as a spec with
				// nothing in it: say that --only left it empty.
				load.Warn = nil // said already
				fmt.Fprintln(cmd.ErrOrStderr(), "site graph: "+onlyKeptNone(phases, args, load))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&only, "only", "", "keep only these phases: secrets,network,storage,vm,dns")
	cmd.Flags().StringArrayVar(&targets, "target", nil, targetFlagHelp)
	completeScope(cmd)
	addCacheFlag(cmd)
	return cmd
}

// onlyKeptNone says that --only phases kept no step of the specs at
// paths, and which phases they do have steps in.
func onlyKeptNone(phases []plan.Phase, paths []string, load compiler.Options) string {
	all, err := loadGraph(paths, nil, nil, load, nil)
	if err != nil {
		all = nil
	}
	return graph.OnlyKeptNone(phases, all)
}
