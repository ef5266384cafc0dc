package plan

import (
	"slices"
	"strings"
	"unicode"

	"github.com/site-tools/site/compiler/hint"
)

// Applied is what site apply did with a plan, for its JSON form
// (WriteAppliedJSON): how the run ended and one outcome per step.
type Applied struct {
	// Result is how the run ended; see the Result constants.
	Result Result `json:"result"`
	// Error is the message site printed on stderr when the run did not
	// converge; absent when it did. Its advice, when it has one, is
	// Hint, not part of Error.
	Error string     `json:"error,omitempty"`
	Hint  *hint.JSON `json:"hint,omitempty"`
	// Steps are the outcomes, in the order apply took the steps (or, when
	// it changed nothing, in plan order); empty when there was nothing
	// to do.
	Steps []Outcome `json:"steps"`
}

// Result is how an apply ended.
type Result string

// Results of an apply. Only ResultApplied and ResultConverged mean the
// live systems now match the specs in scope.
const (
	ResultConverged   Result = "converged"   // nothing to do: no change, no step not planned
	ResultApplied     Result = "applied"     // every step converged (or was deferred on purpose)
	ResultFailed      Result = "failed"      // a step failed, was skipped or did not converge
	ResultInterrupted Result = "interrupted" // Ctrl-C or SIGTERM: steps in flight finished, the rest did not start
	ResultGated       Result = "gated"       // a gate was not acknowledged: nothing was changed
	ResultNotPlanned  Result = "not_planned" // a step could not be planned: nothing was changed
	ResultDeclined    Result = "declined"    // the question on a terminal was not answered yes: nothing was changed
	ResultError       Result = "error"       // apply stopped with an error before its report
)

// Outcome is what happened to one step.
type Outcome struct {
	Step   string `json:"step"`
	Phase  Phase  `json:"phase"`
	Tenant string `json:"tenant,omitempty"`
	// Outcome is "applied", "unchanged", "pending", "partial",
	// "failed", "skipped" or "deferred" as the apply report says, or
	// "blocked": the step was not started because the run changed
	// nothing (a gate missing, a step not planned, a question declined).
	Outcome string `json:"outcome"`
	// Changes counts the step's planned changes.
	Changes int `json:"changes"`
	// Error says why a step failed, was skipped, deferred or blocked;
	// Hint is what to do about it, when its error said.
	Error string     `json:"error,omitempty"`
	Hint  *hint.JSON `json:"hint,omitempty"`
	// Problems are what re-observing after the apply still found.
	Problems []string `json:"problems,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	// Refused are the keys of the changes apply did not make (impact
	// "refused").
	Refused []string `json:"refused,omitempty"`
}

// OutcomeBlocked is the outcome of a step a run that changed nothing
// did not start.
const OutcomeBlocked = "blocked"

// NotApplied returns the outcomes of a run that changed nothing: every
// step with changes, then every step not planned, as blocked, each
// with why: the missing gates its own changes need, or else why the
// run stopped. A step an acknowledged gate defers is "deferred".
func (p *Plan) NotApplied(acked map[Gate]bool, why string) []Outcome {
	var out []Outcome
	for _, group := range groupByStep(p.Changes) {
		c0 := group[0]
		o := Outcome{Step: c0.Step, Phase: c0.Phase, Tenant: c0.Tenant, Outcome: OutcomeBlocked, Changes: len(group), Error: why}
		var missing []string
		for _, c := range group {
			for _, g := range c.Gates {
				if !acked[g] && !slices.Contains(missing, string(g)) {
					missing = append(missing, string(g))
				}
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			o.Error = "needs " + strings.Join(missing, ", ") + " acknowledged (--ack); nothing was changed"
		}
		out = append(out, o)
	}
	for _, bl := range p.Blocked {
		o := Outcome{Step: bl.Step, Phase: bl.Phase, Tenant: bl.Tenant, Outcome: OutcomeBlocked, Error: bl.Reason, Hint: bl.Hint}
		if bl.Hint != nil {
			o.Error = hint.TrimText(bl.Reason, bl.Hint.Text)
		}
		if bl.Gate != "" && acked[bl.Gate] {
			o.Outcome = "deferred"
		}
		out = append(out, o)
	}
	return out
}

// escapeHidden writes, in JSON text, the characters encoding/json
// leaves as they are and a terminal acts on or hides (DEL, the C1
// controls, the Unicode format characters such as a right-to-left
// override) as \u escapes: the text decodes to the same values, and
// an error a server answered with cannot drive the terminal of whoever
// reads the JSON. Outside strings JSON has none of them.
func escapeHidden(s string) string {
	return escapeRunes(s, func(r rune) bool {
		return r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r)
	})
}
