package main

import (
	"fmt"
	"io"
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
		Use:   "help [TOPIC | COMMAND]",
		Short: "Print a help topic, the list of topics, or a command's help",
		Long: `Print the reference: site help lists the topics, site help TOPIC prints
one, site help --all prints them all (--format markdown: one Markdown
document, for a web site). site help COMMAND is site COMMAND --help.`,
		Example: `  site help
  site help records
  site help --all --format markdown > site-manual.md`,
		Args: cobra.MaximumNArgs(1),
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
					printTopic(w, t, md)
				}
				return nil
			case len(args) == 0:
				listTopics(w)
				return nil
			}
			if t, ok := manual.Lookup(args[0]); ok {
				printTopic(w, t, md)
				return nil
			}
			if c, _, err := cmd.Root().Find(args); err == nil && c != cmd.Root() && c.Name() == args[0] {
				return c.Help()
			}
			return fmt.Errorf("no help topic %q; the topics are: %s (or name a command: site help apply)",
				args[0], strings.Join(topicNames(), ", "))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "print every topic, in reading order")
	cmd.Flags().StringVar(&format, "format", "text", "text (for a terminal) or markdown (as written)")
	return cmd
}

func topicNames() []string {
	var names []string
	for _, t := range manual.Topics() {
		names = append(names, t.Name)
	}
	return names
}

// listTopics prints the topics, each with its title: a title is one
// short line, where a topic's first sentence would have to be cut.
func listTopics(w io.Writer) {
	topics := manual.Topics()
	width := 0
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	fmt.Fprintln(w, "site help TOPIC prints one of these; site COMMAND --help a command's flags.")
	fmt.Fprintln(w)
	for _, t := range topics {
		fmt.Fprintf(w, "  %-*s  %s\n", width, t.Name, oneLine(t.Title, 96-width))
	}
}

// oneLine is s cut to n characters.
func oneLine(s string, n int) string {
	if len([]rune(s)) > n {
		s = string([]rune(s)[:n-3]) + "..."
	}
	return s
}

// printTopic writes t as Markdown, or rendered for a terminal.
func printTopic(w io.Writer, t manual.Topic, markdown bool) {
	if markdown {
		fmt.Fprint(w, strings.TrimRight(t.Body, "\n")+"\n")
		return
	}
	fmt.Fprint(w, renderText(t.Body, useColor(w)))
}
