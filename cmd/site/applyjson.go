package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/plan"
)

// apply --format json prints one JSON object on stdout in place of the
// plan's text and the report: the plan as diff --format json prints it
// and an "apply" member with how the run ended and each step's outcome
// (engine.Applied builds it). Errors still go to stderr, and the exit
// code is the text form's. A run that stops before it has a plan (a
// spec that does not load, a lock held, a saved plan stale) prints no
// JSON, as diff --format json does not.

const applyFormatHelp = "text, or json (plan + step outcomes)"

// checkApplyFormat refuses a --format apply does not write.
func checkApplyFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("--format %q: use text or json", format)
	}
	return nil
}

// writeApplyJSON writes the JSON of an apply of p that ended with rep
// (nil when it changed nothing) and err (what carryOut returns), and
// returns err, or the write's error when there was none.
func writeApplyJSON(w io.Writer, p *plan.Plan, acked map[plan.Gate]bool, rep *engine.Report, err error) error {
	a := engine.Applied(p, acked, rep, err, errors.Is(err, errNotConfirmed))
	if werr := p.WriteAppliedJSON(w, acked, a); werr != nil && err == nil {
		return withCode(exitError, werr)
	}
	return err
}
