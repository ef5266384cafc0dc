package main

import (
	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
)

// addBudgetFlags registers the evaluation budgets on a command that
// loads specs (vet, diff, apply): a spec that passes one stops loading
// with exit 1 and a message at the file being evaluated.
func addBudgetFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Duration("eval-timeout", compiler.DefaultEvalTimeout, "stop when evaluating the specs takes longer than this")
	mem := byteSize(compiler.DefaultEvalMemory)
	f.Var(&mem, "eval-memory", "stop when evaluating the specs needs more heap than this, e.g. 2GiB")
}

// budget reads the budgets back from cmd's flags; a command without
// them (graph) gets the defaults.
func budget(cmd *cobra.Command) compiler.Options {
	var o compiler.Options
	if d, err := cmd.Flags().GetDuration("eval-timeout"); err == nil {
		o.EvalTimeout = d
	}
	if f := cmd.Flags().Lookup("eval-memory"); f != nil {
		o.EvalMemory = uint64(*f.Value.(*byteSize))
	}
	return o
}

// byteSize is a flag value written with a binary unit, as specs write
// sizes: "512MiB", "2GiB".
type byteSize uint64

func (b *byteSize) Set(s string) error {
	n, err := compiler.ParseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string { return compiler.FormatSize(uint64(*b)) }

func (b *byteSize) Type() string { return "size" }
