package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/manual"
)

// newHelpCmd is site help: the manual's topics (compiler/manual), as go
// help and cue help print theirs. A name that is no topic but a command
// prints that command's --help, as cobra's own help command did.
func newHelpCmd() *cobra.Command {
	var all bool
	var format string
	cmd := &cobra.Command{
		Use:     "help [TOPIC | COMMAND]",
		Short:   "Print a help topic, the list of topics, or a command's help",
		Long:    longHelp("help"),
		Example: examples("help"),
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format %q: want text or markdown", format)
			}
			md := format == "markdown"
			switch {
			case all && len(args) > 0:
				return fmt.Errorf("--all prints every topic: name none, or drop --all")
			case all:
				for i, t := range manual.Topics() {
					if i > 0 {
						fmt.Fprintln(w)
					}
					t.Write(w, md, useColor(w))
				}
				return nil
			case len(args) == 0:
				manual.WriteList(w)
				return nil
			}
			if t, ok := manual.Lookup(args[0]); ok {
				t.Write(w, md, useColor(w))
				return nil
			}
			if c, _, err := cmd.Root().Find(args); err == nil && c != cmd.Root() && c.Name() == args[0] {
				return c.Help()
			}
			return fmt.Errorf("no help topic %q; the topics are: %s (or name a command: site help apply)",
				args[0], strings.Join(manual.Names(), ", "))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "print every topic, in reading order")
	cmd.Flags().StringVar(&format, "format", "text", "text (for a terminal) or markdown (as written)")
	return cmd
}
