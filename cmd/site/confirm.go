package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
)

// A destructive change is done only when someone said yes to it
// (engine.Unanswered says which were not): --yes, or on a terminal a
// saved plan, the --ack flags of its gates, or "yes" typed when asked.

// stdin is what apply reads the answer from, and stdinIsTerminal says
// whether a person may be typing it; tests replace both.
var (
	stdin           io.Reader = os.Stdin
	stdinIsTerminal           = func() bool { return isTerminal(os.Stdin) }
)

// errNotConfirmed is the answer that was not "yes".
var errNotConfirmed = errors.New("apply cancelled: the answer was not \"yes\", so nothing was changed")

// unanswered returns p's destructive changes that the command line has
// not said yes to (engine.Unanswered); tty says whether a person may
// answer the rest.
func (o applyOptions) unanswered(p *plan.Plan, acked map[plan.Gate]bool, tty bool) []plan.Change {
	return engine.Unanswered(p, acked, engine.Answers{Yes: o.yes, SavedPlan: o.planFile != "", Terminal: tty})
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
	if n := len(engine.Destructive(p)) - len(risky); n > 0 {
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
