package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
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

// stdin is what apply reads the answer from, and stdinIsTerminal says
// whether a person may be typing it; tests replace both.
var (
	stdin           io.Reader = os.Stdin
	stdinIsTerminal           = func() bool { return isTerminal(os.Stdin) }
)

// errNotConfirmed is the answer that was not "yes".
var errNotConfirmed = errors.New("apply cancelled: the answer was not \"yes\", so nothing was changed")

// destructive returns the changes that cause an outage, lose data or
// replace foreign data: what apply asks about. A delete of impact none
// is of site's own leftovers (a seed image no definition uses, an
// unfinished upload), which nobody sees go.
func destructive(p *plan.Plan) []plan.Change {
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

// unanswered returns p's destructive changes that the command line has
// not said yes to (see the rule above); tty says whether a person may
// answer the rest.
func (o applyOptions) unanswered(p *plan.Plan, acked map[plan.Gate]bool, tty bool) []plan.Change {
	if o.yes || (tty && o.planFile != "") {
		return nil
	}
	var out []plan.Change
	for _, c := range destructive(p) {
		if !tty || !ackedAll(c.Gates, acked) {
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

// unconfirmedError means stdin is not a terminal and the plan has
// destructive changes that --yes did not answer: apply returns it
// before changing anything, and site exits 3.
type unconfirmedError struct {
	changes []plan.Change
	command string // the command line that was run
}

func (e *unconfirmedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in the plan above would delete, overwrite, restart or destroy, and stdin is not a terminal, so site cannot ask: nothing was changed:\n", count(len(e.changes), "change"))
	listChanges(&b, e.changes)
	fmt.Fprintf(&b, "--yes says yes to these changes without asking (an --ack never does without a terminal); to apply them, run: %s --yes", e.command)
	return b.String()
}

// listChanges writes one indented line per change.
func listChanges(w io.Writer, changes []plan.Change) {
	for _, c := range changes {
		fmt.Fprintf(w, "  %s %s [%s]\n", c.Action, visible.String(c.Key), c.Impact)
	}
}

// confirm checks that every destructive change of p was said yes to,
// asking on w (reading in) about the rest when a person is at a
// terminal. It returns errNotConfirmed unless the answer is "yes", and
// an *unconfirmedError when nobody can be asked.
func (o applyOptions) confirm(p *plan.Plan, acked map[plan.Gate]bool, command string, in io.Reader, w io.Writer) error {
	tty := stdinIsTerminal()
	risky := o.unanswered(p, acked, tty)
	if len(risky) == 0 {
		return nil
	}
	if !tty {
		return &unconfirmedError{changes: risky, command: command}
	}
	fmt.Fprintf(w, "\n%s in the plan above can cause an outage, delete or replace data", count(len(risky), "change"))
	if n := len(destructive(p)) - len(risky); n > 0 {
		fmt.Fprintf(w, " (besides %s that --ack answered)", count(n, "change"))
	}
	fmt.Fprintln(w, ":")
	listChanges(w, risky)
	fmt.Fprint(w, "Apply these changes? Only \"yes\" goes on (site apply --yes skips this question).\nType yes: ")
	line, err := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the answer: %w: nothing was changed", err)
		}
		return errNotConfirmed
	}
	return nil
}
