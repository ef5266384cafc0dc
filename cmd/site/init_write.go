package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/scaffold"
)

// writeScaffold writes what init generated (scaffold.Writing.Write):
// the tenant's file at out, and the operator's file new, or its lines
// added with --config, or printed for the operator to add.
func writeScaffold(cmd *cobra.Command, out string, op scaffold.Operator, g scaffold.Result, o scaffold.Options) error {
	w := scaffold.Writing{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Out: out, ToConfig: configFlag != "",
		Command: func(sub string, args ...string) string { return strings.Join(commandWords(sub, args...), " ") }}
	return w.Write(op, g, o)
}
