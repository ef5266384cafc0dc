package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// GatesMissingError means the plan needs gates that were not
// acknowledged. Apply returns it before changing anything.
type GatesMissingError struct {
	Missing []plan.Gate // sorted
	Plan    *plan.Plan
	// Command, when set by the caller, is the command line that was run
	// (e.g. "site apply tenants/sjc.cue"); Error then ends with the whole
	// command that acknowledges the missing gates, ready to copy.
	Command string
	// Then, when set, follows the --ack flags in that command: the
	// other flags the next run needs (apply's --yes without a terminal).
	Then string
}

func (e *GatesMissingError) Error() string {
	var b strings.Builder
	n := len(e.Missing)
	fmt.Fprintf(&b, "%d %s not acknowledged, so nothing was changed:\n", n, words.Plural(n, "gate is", "gates are"))
	p := e.Plan
	if p == nil {
		p = plan.New()
	}
	for _, g := range e.Missing {
		fmt.Fprintf(&b, "  %s", g)
		if m := g.Meaning(); m != "" {
			fmt.Fprintf(&b, " (%s)", m)
		}
		b.WriteString(":\n")
		for _, c := range p.Changes {
			if !slices.Contains(c.Gates, g) {
				continue
			}
			fmt.Fprintf(&b, "    %s %s [%s]", c.Action, c.KeyOnStep(), c.Impact)
			if c.Reason != "" {
				fmt.Fprintf(&b, ": %s", c.Reason)
			}
			b.WriteString("\n")
		}
		for _, bl := range p.Blocked {
			if bl.Gate == g && !bl.Skipped {
				fmt.Fprintf(&b, "    %s: not observed: %s\n", bl.Step, words.IndentLines(bl.Reason, "      "))
			}
		}
	}
	b.WriteString(e.Hint().Render())
	return b.String()
}

// Hint is the advice of gates not acknowledged: the flags that
// acknowledge them, in the command that was run when it is known.
func (e *GatesMissingError) Hint() hint.Hint {
	var flags []string
	for _, g := range e.Missing {
		flags = append(flags, "--ack "+string(g))
	}
	if e.Then != "" {
		flags = append(flags, e.Then)
	}
	h := hint.Hint{Kind: hint.Acknowledge, Spec: strings.Join(flags, " "), Command: e.Command}
	if len(e.Missing) > 0 {
		h.Gate = string(e.Missing[0])
	}
	return h
}

// BlockedError means some steps in scope were not planned (not
// observed, or observed and refused by their driver) and no
// acknowledged gate defers them. Apply returns it before changing
// anything: what it could not see or will not do, it must not
// half-change.
type BlockedError struct {
	Blocked []plan.Blocked // sorted by step
}

func (e *BlockedError) Error() string {
	var b strings.Builder
	n := len(e.Blocked)
	fmt.Fprintf(&b, "%d %s could not be planned, so nothing was changed:\n", n, words.Plural(n, "step", "steps"))
	for _, bl := range e.Blocked {
		fmt.Fprintf(&b, "  %s: %s\n", bl.Step, words.IndentLines(bl.Reason, "    "))
		if bl.Gate != "" && !strings.Contains(bl.Reason, "--ack "+string(bl.Gate)) {
			fmt.Fprintf(&b, "    (or defer it and the steps that need it: --ack %s)\n", bl.Gate)
		}
	}
	b.WriteString("fix what each reason names and run again, or leave those steps out with --only or --target")
	return b.String()
}
