package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
)

// addBudgetFlags registers the budgets on a command that loads specs
// (vet, diff, apply). They cover the whole load, reading, evaluating and
// checking the specs: a spec that passes one stops loading with exit 1
// and a message at the file being evaluated or checked.
func addBudgetFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	durationVar(f, new(time.Duration), "eval-timeout", compiler.DefaultEvalTimeout, false,
		"a positive duration such as 2m (the budget cannot be turned off)",
		"stop when loading the specs takes longer")
	mem := byteSize(compiler.DefaultEvalMemory)
	f.Var(&mem, "eval-memory", "stop when loading needs more heap, e.g. 2GiB")
	addCacheFlag(cmd)
}

// addCacheFlag registers --no-cache on a command that loads specs (vet,
// diff, apply, graph). Without it, each file's evaluation is kept in the
// cache directory and an unchanged file is not evaluated again
// (compiler.Cache).
func addCacheFlag(cmd *cobra.Command) {
	cmd.Flags().Bool("no-cache", false, "neither read nor write the evaluation cache ($SITE_CACHE_DIR)")
}

// budget reads the budgets and the cache back from cmd's flags; a
// command without the budget flags (graph) gets the defaults.
func budget(cmd *cobra.Command) compiler.Options {
	var o compiler.Options
	if d, err := cmd.Flags().GetDuration("eval-timeout"); err == nil {
		o.EvalTimeout = d
	}
	if f := cmd.Flags().Lookup("eval-memory"); f != nil {
		o.EvalMemory = uint64(*f.Value.(*byteSize))
	}
	if off, err := cmd.Flags().GetBool("no-cache"); err == nil && !off {
		o.Cache = compiler.OpenDefaultCache(time.Now())
	}
	return o
}

// byteSize is a flag value written with a binary unit, as specs write
// sizes: "512MiB", "2GiB".
type byteSize uint64

func (b *byteSize) Set(s string) error {
	n, err := compiler.ParseSize(s)
	if err != nil {
		// ParseSize calls a size of 0 out of range; as a budget it
		// means nothing, and cannot turn the budget off.
		if digits := strings.TrimRight(s, "KMGTiB"); digits != "" && strings.Trim(digits, "0") == "" {
			return fmt.Errorf("size %q: 0 means nothing here: want a positive size such as 2GiB (the budget cannot be turned off)", s)
		}
		return err
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string { return compiler.FormatSize(uint64(*b)) }

func (b *byteSize) Type() string { return "size" }
