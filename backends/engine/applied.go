package engine

import (
	"errors"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// Applied is what apply --format json says of a run of p that ended
// with rep (nil when it changed nothing) and err (what the run
// returned): how it ended and each step's outcome (plan.WriteAppliedJSON
// documents them). declined is true when err is the operator's answer
// that was not "yes".
func Applied(p *plan.Plan, acked map[plan.Gate]bool, rep *Report, err error, declined bool) *plan.Applied {
	a := &plan.Applied{Result: result(p, rep, err, declined)}
	if err != nil {
		cause, h, _ := hint.Split(err)
		a.Error, a.Hint = cause, h.ToJSON()
	}
	switch {
	case rep != nil:
		a.Steps = rep.Outcomes()
	case a.Result != plan.ResultConverged:
		a.Steps = p.NotApplied(acked, notAppliedWhy(a.Result))
	}
	return a
}

// result says how an apply ended.
func result(p *plan.Plan, rep *Report, err error, declined bool) plan.Result {
	var gm *GatesMissingError
	var be *BlockedError
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
	case err != nil && declined:
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

// Outcomes are r's steps as apply's JSON reports them.
func (r *Report) Outcomes() []plan.Outcome {
	out := make([]plan.Outcome, 0, len(r.Steps))
	for _, s := range r.Steps {
		o := plan.Outcome{Step: s.Step, Phase: s.Phase, Tenant: s.Tenant, Outcome: string(s.Status),
			Changes: s.Changes + len(s.Refused), Problems: s.Problems, Notes: s.Notes}
		if s.Status != StatusApplied && s.Status != StatusUnchanged {
			o.Error, o.Hint = hint.Trim(s.Reason, s.Hint), s.Hint.ToJSON()
		}
		for _, c := range s.Refused {
			o.Refused = append(o.Refused, c.Key)
		}
		out = append(out, o)
	}
	return out
}
