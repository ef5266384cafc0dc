package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/site-tools/site/compiler/plan"
)

// On a terminal, apply asks before a destructive change unless the
// user already said what to do: as Terraform does, a person at a
// keyboard confirms an outage, a deletion or an overwrite after seeing
// the plan. Scripts (stdin not a terminal) are never asked: the gates
// alone decide there, as before. --yes, any --ack, or a saved plan
// (--plan: it was reviewed when it was saved) skip the question.

// stdin is what apply reads the answer from, and stdinIsTerminal says
// whether a person may be typing it; tests replace both.
var (
	stdin           io.Reader = os.Stdin
	stdinIsTerminal           = func() bool { return isTerminal(os.Stdin) }
)

// errNotConfirmed is the answer that was not "yes".
var errNotConfirmed = errors.New("apply cancelled: the answer was not \"yes\", so nothing was changed")

// destructive returns the changes that cause an outage, lose data or
// replace foreign data: what apply asks about.
func destructive(p *plan.Plan) []plan.Change {
	var out []plan.Change
	for _, c := range p.Changes {
		switch {
		case c.Action == plan.ActionDelete,
			c.Impact == plan.ImpactRestart, c.Impact == plan.ImpactDestroy, c.Impact == plan.ImpactOverwrite:
			out = append(out, c)
		}
	}
	return out
}

// confirm asks on w whether to apply p's destructive changes when a
// person is at a terminal and nothing on the command line answered
// already; it returns errNotConfirmed unless the answer is "yes".
func (o applyOptions) confirm(p *plan.Plan, in io.Reader, w io.Writer) error {
	if o.yes || len(o.acks) > 0 || o.planFile != "" || !stdinIsTerminal() {
		return nil
	}
	risky := destructive(p)
	if len(risky) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s in the plan above can cause an outage, delete or replace data:\n", count(len(risky), "change"))
	for _, c := range risky {
		fmt.Fprintf(w, "  %s %s [%s]\n", c.Action, c.Key, c.Impact)
	}
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
