package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// completeScope registers shell completion for the flags of cmd that
// name gates, phases, steps and VMs: --ack (the gates cmd uses), --only
// (phases, after any already given with commas), --target (the step
// IDs of the specs named so far, or ./tenants/..., that --only keeps)
// and --restart (their VMs, TENANT/VM). Flags cmd lacks are left alone.
func completeScope(cmd *cobra.Command) {
	if cmd.Flags().Lookup("ack") != nil {
		_ = cmd.RegisterFlagCompletionFunc("ack", completeGates(cmd.Name()))
	}
	if cmd.Flags().Lookup("only") != nil {
		_ = cmd.RegisterFlagCompletionFunc("only", completePhases)
	}
	if cmd.Flags().Lookup("target") != nil {
		_ = cmd.RegisterFlagCompletionFunc("target", completeTargets)
	}
	if cmd.Flags().Lookup("restart") != nil {
		_ = cmd.RegisterFlagCompletionFunc("restart", completeRestarts)
	}
}

// fileFlags are the flags whose value is a file: the shell's own
// completion, file names, fits them.
var fileFlags = map[string]bool{"config": true, "out": true, "plan": true}

// completeNoFiles gives every flag of cmd and the commands below it that
// takes a value, names no file and has no completion of its own one
// that offers nothing: without it the shell offers file names, as if
// --zone or --provider took one. It runs once every command is added.
func completeNoFiles(cmd *cobra.Command) {
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" || fileFlags[f.Name] {
			return
		}
		if _, ok := cmd.GetFlagCompletionFunc(f.Name); !ok {
			_ = cmd.RegisterFlagCompletionFunc(f.Name, cobra.NoFileCompletions)
		}
	})
	for _, c := range cmd.Commands() {
		completeNoFiles(c)
	}
}

// completeProviders completes site init --provider and site disown
// PROVIDER --provider with the providers the operator's file declares
// (--config, else found from here), each with its kind; with no such
// file, nothing.
func completeProviders(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return compiler.CompleteProviders(configFlag, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeGates completes --ack of command (apply, diff, disown,
// unlock) with the gates it takes (gatesOf), not the whole catalogue:
// the others it refuses.
func completeGates(command string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, g := range plan.GatesOf(command) {
			if strings.HasPrefix(string(g), strings.ToUpper(toComplete)) {
				out = append(out, string(g)+"\t"+g.Meaning())
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeWords completes a flag that takes one of a few words, each
// "word\tdescription".
func completeWords(words ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, w := range words {
			if strings.HasPrefix(w, toComplete) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeUnlock completes site unlock TENANT [PATH ...]: the tenant
// with the names unlock accepts, those of the specs at ./tenants/...
// (loaded as --target's completion loads them; the PATHs come after
// the tenant, so none is known yet), then the PATHs as .cue files.
func completeUnlock(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return []string{"cue"}, cobra.ShellCompDirectiveFilterFileExt
	}
	g, err := loadGraph(nil, nil, nil, budget(cmd), nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, t := range scopeTenants(g) {
		if strings.HasPrefix(t.Name, toComplete) {
			out = append(out, t.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completePhases completes the last of a comma-separated list, leaving
// out the phases already in it.
func completePhases(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return graph.CompletePhases(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeTargets loads the specs in args (as the command would, with
// its --only: a step --only leaves out is refused as a target) and
// offers their step IDs; a spec that does not load offers nothing.
func completeTargets(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	g, ok := completionGraph(cmd, args)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return g.CompleteSteps(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeRestarts offers the VMs in scope as --restart names them,
// TENANT/VM (graph.CheckRestarts refuses any other).
func completeRestarts(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	g, ok := completionGraph(cmd, args)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return g.CompleteVMs(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completionGraph is the step graph of the specs in args under cmd's
// --only, if it has one and it parses; ok is false when they do not
// load.
func completionGraph(cmd *cobra.Command, args []string) (g *graph.Graph, ok bool) {
	var phases []plan.Phase
	if f := cmd.Flags().Lookup("only"); f != nil {
		phases, _ = parseOnly(f.Value.String()) // a bad --only is the command's to report
	}
	g, err := loadGraph(args, phases, nil, budget(cmd), nil)
	return g, err == nil
}

// teachCompletion adds cobra's completion command to root now, rather
// than when it runs, to say in its --help what site completes and to
// give it an example, as every other command's --help does.
func teachCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Long = longHelp("completion")
	}
}
