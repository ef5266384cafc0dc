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

// confirm checks that every destructive change of p was said yes to,
// asking on w (reading in) about the rest when a person is at a
// terminal. It returns errNotConfirmed unless the answer is "yes", and
// an *engine.UnconfirmedError when nobody can be asked.
func (o applyOptions) confirm(p *plan.Plan, acked map[plan.Gate]bool, command string, in io.Reader, w io.Writer) error {
	tty := stdinIsTerminal()
	risky := o.unanswered(p, acked, tty)
	if len(risky) == 0 {
		return nil
	}
	if !tty {
		return &engine.UnconfirmedError{Changes: risky, Command: command}
	}
	engine.WriteQuestion(w, p, risky)
	line, err := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the answer: %w: nothing was changed", err)
		}
		return errNotConfirmed
	}
	return nil
}
