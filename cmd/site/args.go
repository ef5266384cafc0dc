package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// This file holds the checks of positional arguments. cobra's own say
// `unknown command "x"` or `accepts 1 arg(s), received 0`, which name
// neither what was expected nor where the input goes instead.

// noArgs refuses positional arguments; hint says where the input goes.
func noArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no arguments, got %q: %s", cmd.CommandPath(), args[0], hint)
		}
		return nil
	}
}

// oneArg wants exactly one positional argument, named what; usage is
// the command line to show when it is missing or doubled.
func oneArg(what, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return fmt.Errorf("name the %s: %s", what, usage)
		case len(args) > 1:
			return fmt.Errorf("%s takes one %s, got %d (%q): %s", cmd.CommandPath(), what, len(args), args, usage)
		}
		return nil
	}
}
