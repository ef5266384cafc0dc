package engine

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// TextProgress is the Hook site shows a walk through: one line per
// finished step. On a terminal the line updates in place so a long run
// does not scroll the plan away; lines about trouble (blocked, failed,
// skipped) stay on screen. Elsewhere (CI logs, pipes) every line is
// kept, without escape codes. The engine calls it one step at a time;
// the lock is for the session's events, which come from other
// goroutines (an interrupt, a slow server).
type TextProgress struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	color bool
	verb  string
	total int
	n     int
	open  bool // a live line is on screen
	// stopped is set by the first interrupt: a step not observed after
	// it was stopped, not blocked by its backend.
	stopped bool
	// Quiet drops the per-step lines and the summary line (--quiet):
	// the plan and the report say the same, and lines that are said
	// (a slow server, an interrupt) stay.
	Quiet bool
}

// liveWidth keeps a live line within one terminal row: a wrapped line
// cannot be rewritten with a carriage return.
const liveWidth = 100

// NewTextProgress writes to w; live rewrites one line (for a terminal),
// color paints the status words.
func NewTextProgress(w io.Writer, live, color bool) *TextProgress {
	return &TextProgress{w: w, live: live, color: color}
}

// PlanStart, Observed and PlanDone show Engine.Plan's walk.
func (p *TextProgress) PlanStart(total int) { p.start("observe", total) }

func (p *TextProgress) Observed(id string, sp *backends.StepPlan, b *plan.Blocked) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case sp != nil:
		p.step(id, StatusObserved, DescribeChanges(len(sp.Changes)))
	// Why a step was not observed is printed once, by the plan that
	// follows (its "Not planned" section, or the JSON), not here too.
	case p.stopped:
		p.step(id, StatusStopped, "")
	case b.Skipped:
		p.step(id, StatusSkipped, "")
	default:
		p.step(id, StatusBlocked, "")
	}
}

func (p *TextProgress) PlanDone(obs *Observation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done(observedLine(len(obs.Steps), len(obs.Plan.Blocked), len(obs.Plan.Changes)))
}

// observedLine sums up an observation: the changes are those of the
// steps planned, which is worth saying when some were not ("no changes"
// after planning nothing read as "converged"). A step is not planned
// when it could not be observed, or was observed and refused (a volume
// another tenant's domain holds): the plan's "Not planned" section says
// which, so this line does not claim either.
func observedLine(planned, blocked, changes int) string {
	if blocked == 0 {
		return fmt.Sprintf("observed %d of %s, %s", planned, words.Count(planned, "step"), DescribeChanges(changes))
	}
	line := fmt.Sprintf("planned %d of %s", planned, words.Count(planned+blocked, "step"))
	switch {
	case planned == 0:
		return fmt.Sprintf("%s (%d not planned)", line, blocked)
	}
	return fmt.Sprintf("%s (%d not planned), %s in those planned", line, blocked, DescribeChanges(changes))
}

// ApplyStart, Applied and ApplyDone show Engine.Apply's walk.
func (p *TextProgress) ApplyStart(total int) { p.start("apply", total) }

// Started shows nothing: the step's line comes when it finishes.
func (p *TextProgress) Started(string) {}

func (p *TextProgress) Applied(r StepReport) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Why a step failed, or was skipped or deferred, is printed once,
	// by the report that follows, not here too.
	detail := ""
	switch r.Status {
	case StatusApplied, StatusUnchanged:
		detail = DescribeChanges(r.Changes)
	case StatusPending:
		detail = DescribeWaiting(r)
	}
	if len(r.Problems) > 0 {
		detail = strings.TrimSpace(detail + fmt.Sprintf(" (%s)", words.Count(len(r.Problems), "problem")))
	}
	p.step(r.Step, r.Status, detail)
}

func (p *TextProgress) ApplyDone(rep *Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done(rep.Counts())
}

// start begins counting a walk of total steps.
func (p *TextProgress) start(verb string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verb, p.total, p.n, p.open = verb, total, 0, false
}

// Notify shows one of the session's events as the line it says; the
// first interrupt also marks the steps it stops as stopped, not
// blocked by their backend.
func (p *TextProgress) Notify(e Event) {
	if _, ok := e.(Interrupted); ok {
		p.interrupted()
	}
	p.say(e.String())
}

// interrupted marks the run as interrupted, for the steps it stops.
func (p *TextProgress) interrupted() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// say writes a line that stays, between progress lines.
func (p *TextProgress) say(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.open = false
	}
	fmt.Fprintln(p.w, line)
}

// step reports one finished step.
func (p *TextProgress) step(id string, st Status, detail string) {
	p.n++
	if p.Quiet {
		return
	}
	word := string(st)
	if p.color {
		word = ColorFor(st) + word + "\x1b[0m"
	}
	line := fmt.Sprintf("[%d/%d] %s %s", p.n, p.total, id, word)
	if detail != "" {
		line += ": " + words.IndentLines(detail, "    ")
	}
	if !p.live {
		fmt.Fprintln(p.w, line)
		return
	}
	if trouble(st) {
		fmt.Fprintf(p.w, "\r\x1b[K%s\n", line)
		p.open = false
		return
	}
	// A line rewritten in place must be one row: keep the first line of
	// a multi-line detail (the plan printed next has all of it).
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i] + " …"
	}
	if r := []rune(line); len(r) > liveWidth {
		line = string(r[:liveWidth-1]) + "…"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.open = true
}

// done ends the progress with a summary line that stays.
func (p *TextProgress) done(summary string) {
	if p.Quiet {
		return
	}
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.open = false
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.verb, summary)
}

func trouble(st Status) bool {
	switch st {
	case StatusBlocked, StatusFailed, StatusPartial, StatusSkipped:
		return true
	}
	return false
}

// WatchSlow has run name, among the progress lines, each request a
// server leaves unanswered for after, and again each time its wait
// doubles, as a Session does; for a command that reads without one
// (site leftovers). Call it before the run's first request.
func (p *TextProgress) WatchSlow(run *backends.Run, after time.Duration) {
	run.SlowAfter = after
	run.Slow = func(a backends.Awaited, waited time.Duration) {
		p.Notify(SlowRequest{Awaited: a, Waited: waited})
	}
	run.Progress = func(line string) { p.Notify(Said{Line: line}) }
}
