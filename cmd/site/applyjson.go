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
// (plan.WriteAppliedJSON documents it). Errors still go to stderr, and
// the exit code is the text form's. A run that stops before it has a
// plan (a spec that does not load, a lock held, a saved plan stale)
// prints no JSON, as diff --format json does not.

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
	a := &plan.Applied{Result: applyResult(p, rep, err)}
	if err != nil {
		a.Error = err.Error()
	}
	switch {
	case rep != nil:
		a.Steps = outcomes(rep)
	case a.Result != plan.ResultConverged:
		a.Steps = p.NotApplied(acked, notAppliedWhy(a.Result))
	}
	if werr := p.WriteAppliedJSON(w, acked, a); werr != nil && err == nil {
		return withCode(exitError, werr)
	}
	return err
}

// applyResult says how an apply ended.
func applyResult(p *plan.Plan, rep *engine.Report, err error) plan.Result {
	var gm *engine.GatesMissingError
	var be *engine.BlockedError
	switch {
	case rep != nil && rep.Interrupted:
		return plan.ResultInterrupted
	case rep != nil && !rep.OK():
		return plan.ResultFailed
	case rep != nil:
		return plan.ResultApplied
	case errors.As(err, &gm):
		return plan.ResultGated
	case errors.As(err, &be):
		return plan.ResultNotPlanned
	case errors.Is(err, errNotConfirmed):
		return plan.ResultDeclined
	case err != nil:
		return plan.ResultError
	case !p.HasChanges() && len(p.Blocked) == 0:
		return plan.ResultConverged
	}
	return plan.ResultApplied
}

// notAppliedWhy is a blocked step's error when its own changes need no
// gate that is missing: why the run did not start it.
func notAppliedWhy(r plan.Result) string {
	switch r {
	case plan.ResultGated:
		return "not started: a gate other steps need was not acknowledged, so nothing was changed"
	case plan.ResultNotPlanned:
		return "not started: a step could not be planned, so nothing was changed"
	case plan.ResultDeclined:
		return "not started: the answer was not \"yes\", so nothing was changed"
	}
	return "not started: apply stopped before changing anything"
}

// outcomes are rep's steps as apply's JSON reports them.
func outcomes(rep *engine.Report) []plan.Outcome {
	out := make([]plan.Outcome, 0, len(rep.Steps))
	for _, s := range rep.Steps {
		o := plan.Outcome{Step: s.Step, Phase: s.Phase, Tenant: s.Tenant, Outcome: string(s.Status),
			Changes: s.Changes + len(s.Refused), Problems: s.Problems, Notes: s.Notes}
		if s.Status != engine.StatusApplied && s.Status != engine.StatusUnchanged {
			o.Error = s.Reason
		}
		for _, c := range s.Refused {
			o.Refused = append(o.Refused, c.Key)
		}
		out = append(out, o)
	}
	return out
}
