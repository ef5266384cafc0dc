package engine

import "github.com/site-tools/site/compiler/plan"

// A destructive change (a delete, or an outage, lost data or foreign
// data replaced) is done only when someone said yes to it, as
// Terraform's apply does:
//
//   - --yes says yes to every change;
//   - on a terminal, a saved plan (--plan: reviewed when it was saved)
//     answers its changes, and so do the --ack flags for a change whose
//     every gate they acknowledge; what is left is asked about, "Type
//     yes", listing exactly those changes. An ack answers only the
//     changes behind its own gate, never a delete no gate guards;
//   - without a terminal nobody can answer, so only --yes does: acks
//     and saved plans included, apply exits 3 having changed nothing,
//     naming the changes and the command that adds --yes. An ack says
//     "this gate's risk is known", not "go ahead unasked".

// Destructive returns the changes that cause an outage, lose data or
// replace foreign data: what apply asks about. A delete of impact none
// is of site's own leftovers (a seed image no definition uses, an
// unfinished upload), which nobody sees go.
func Destructive(p *plan.Plan) []plan.Change {
	var out []plan.Change
	for _, c := range p.Changes {
		switch {
		case c.Action == plan.ActionDelete && c.Impact != plan.ImpactNone,
			c.Impact == plan.ImpactRestart, c.Impact == plan.ImpactDestroy, c.Impact == plan.ImpactOverwrite:
			out = append(out, c)
		}
	}
	return out
}

// Answers are what the command line says yes with, and whether a
// person may answer the rest.
type Answers struct {
	Yes       bool // --yes
	SavedPlan bool // --plan: reviewed when it was saved
	Terminal  bool // stdin is a terminal
}

// Unanswered returns p's destructive changes that a says no yes to
// (see the rule above), acked being the gates acknowledged.
func Unanswered(p *plan.Plan, acked map[plan.Gate]bool, a Answers) []plan.Change {
	if a.Yes || (a.Terminal && a.SavedPlan) {
		return nil
	}
	var out []plan.Change
	for _, c := range Destructive(p) {
		if !a.Terminal || !ackedAll(c.Gates, acked) {
			out = append(out, c)
		}
	}
	return out
}

// ackedAll reports whether gates is not empty and acked holds each.
func ackedAll(gates []plan.Gate, acked map[plan.Gate]bool) bool {
	for _, g := range gates {
		if !acked[g] {
			return false
		}
	}
	return len(gates) > 0
}
