package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
	"github.com/site-tools/site/compiler/words"
)

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

// UnconfirmedError means stdin is not a terminal and the plan has
// destructive changes that --yes did not answer: apply returns it
// before changing anything, and site exits 3.
type UnconfirmedError struct {
	Changes []plan.Change
	Command string // the command line that was run
}

func (e *UnconfirmedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in the plan above would delete, overwrite, restart or destroy, and stdin is not a terminal, so site cannot ask: nothing was changed:\n", words.Count(len(e.Changes), "change"))
	listChanges(&b, e.Changes)
	b.WriteString(e.Hint().Render())
	return b.String()
}

// Hint is the advice of changes nobody could be asked about: say yes
// to them with --yes.
func (e *UnconfirmedError) Hint() hint.Hint {
	return hint.Hint{Kind: hint.ConfirmWithYes, Command: e.Command}
}

// WriteQuestion asks on w about risky, the changes of p left
// unanswered, ending where the answer is typed.
func WriteQuestion(w io.Writer, p *plan.Plan, risky []plan.Change) {
	fmt.Fprintf(w, "\n%s in the plan above can cause an outage, delete or replace data", words.Count(len(risky), "change"))
	if n := len(Destructive(p)) - len(risky); n > 0 {
		fmt.Fprintf(w, " (besides %s that --ack answered)", words.Count(n, "change"))
	}
	fmt.Fprintln(w, ":")
	listChanges(w, risky)
	fmt.Fprint(w, "Apply these changes? Only \"yes\" goes on (site apply --yes skips this question).\nType yes: ")
}

// listChanges writes one indented line per change.
func listChanges(w io.Writer, changes []plan.Change) {
	for _, c := range changes {
		fmt.Fprintf(w, "  %s %s [%s]\n", c.Action, visible.String(c.KeyOnStep()), c.Impact)
	}
}
