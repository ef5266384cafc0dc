package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/plan"
)

// progress is the engine.Hook site shows a walk through: one line per
// finished step. On a terminal the line updates in place so a long run
// does not scroll the plan away; lines about trouble (blocked, failed,
// skipped) stay on screen. Elsewhere (CI logs, pipes) every line is
// kept, without escape codes. The engine calls it one step at a time;
// the lock is for the interrupt watcher, which asks what is in flight
// and writes its own lines from another goroutine.
type progress struct {
	mu       sync.Mutex
	inFlight map[string]bool // steps handed to a backend, not yet finished
	// stepDone is closed, and replaced, whenever a step finishes: the
	// exit of a second interrupt waits on it for the steps in flight.
	stepDone chan struct{}
	reading  map[string]bool // steps being observed

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
	// quiet drops the per-step lines and the summary line (--quiet):
	// the plan and the report say the same, and lines that are said
	// (a slow server, an interrupt) stay.
	quiet bool
}

// interrupted marks the run as interrupted, for the steps it stops.
func (p *progress) interrupted() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// liveWidth keeps a live line within one terminal row: a wrapped line
// cannot be rewritten with a carriage return.
const liveWidth = 100

// newProgress writes to w; live rewrites one line (for a terminal),
// color paints the status words.
func newProgress(w io.Writer, live, color bool) *progress {
	return &progress{w: w, live: live, color: color, inFlight: map[string]bool{}, reading: map[string]bool{}, stepDone: make(chan struct{})}
}

// PlanStart, Observed and PlanDone show Engine.Plan's walk.
func (p *progress) PlanStart(total int) { p.start("observe", total) }

// Observing keeps the steps being observed, which an interrupt names.
func (p *progress) Observing(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reading[id] = true
}

// listing names work that only reads outside any step (what the tenants
// no longer declare), for an interrupt's message, until done is called.
func (p *progress) listing(what string) (done func()) {
	p.Observing(what)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.reading, what)
	}
}

// observing lists, sorted, the steps being observed.
func (p *progress) observing() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.reading))
}

func (p *progress) Observed(id string, sp *backends.StepPlan, b *plan.Blocked) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.reading, id)
	switch {
	case sp != nil:
		p.step(id, statusObserved, describeChanges(len(sp.Changes)))
	// Why a step was not observed is printed once, by the plan that
	// follows (its "Not planned" section, or the JSON), not here too.
	case p.stopped:
		p.step(id, statusStopped, "")
	case b.Skipped:
		p.step(id, engine.StatusSkipped, "")
	default:
		p.step(id, statusBlocked, "")
	}
}

func (p *progress) PlanDone(obs *engine.Observation) {
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
		return fmt.Sprintf("observed %d of %s, %s", planned, count(planned, "step"), describeChanges(changes))
	}
	line := fmt.Sprintf("planned %d of %s", planned, count(planned+blocked, "step"))
	switch {
	case planned == 0:
		return fmt.Sprintf("%s (%d not planned)", line, blocked)
	}
	return fmt.Sprintf("%s (%d not planned), %s in those planned", line, blocked, describeChanges(changes))
}

// ApplyStart, Applied and ApplyDone show Engine.Apply's walk.
func (p *progress) ApplyStart(total int) { p.start("apply", total) }

// Started and Applied keep the set of steps in flight for the
// interrupt watcher, which names them.
func (p *progress) Started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight[id] = true
}

func (p *progress) Applied(r engine.StepReport) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inFlight, r.Step)
	close(p.stepDone)
	p.stepDone = make(chan struct{})
	// Why a step failed, or was skipped or deferred, is printed once,
	// by the report that follows, not here too.
	detail := ""
	switch r.Status {
	case engine.StatusApplied, engine.StatusUnchanged:
		detail = describeChanges(r.Changes)
	case engine.StatusPending:
		detail = describeWaiting(r)
	}
	if len(r.Problems) > 0 {
		detail = strings.TrimSpace(detail + fmt.Sprintf(" (%s)", count(len(r.Problems), "problem")))
	}
	p.step(r.Step, r.Status, detail)
}

func (p *progress) ApplyDone(rep *engine.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done(reportCounts(rep))
}

// start begins counting a walk of total steps.
func (p *progress) start(verb string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verb, p.total, p.n, p.open = verb, total, 0, false
}

// running returns the steps in flight, sorted.
func (p *progress) running() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, 0, len(p.inFlight))
	for id := range p.inFlight {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// inFlightNow returns the steps in flight, sorted, and a channel
// closed when a step next finishes.
func (p *progress) inFlightNow() ([]string, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.inFlight)), p.stepDone
}

// say writes a line that stays, between progress lines.
func (p *progress) say(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.open = false
	}
	fmt.Fprintln(p.w, line)
}

// step reports one finished step.
func (p *progress) step(id string, st engine.Status, detail string) {
	p.n++
	if p.quiet {
		return
	}
	word := string(st)
	if p.color {
		word = colorFor(st) + word + "\x1b[0m"
	}
	line := fmt.Sprintf("[%d/%d] %s %s", p.n, p.total, id, word)
	if detail != "" {
		line += ": " + indentLines(detail, "    ")
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
func (p *progress) done(summary string) {
	if p.quiet {
		return
	}
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.open = false
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.verb, summary)
}

func trouble(st engine.Status) bool {
	switch st {
	case statusBlocked, engine.StatusFailed, engine.StatusPartial, engine.StatusSkipped:
		return true
	}
	return false
}

// slowRequestAfter is how long a request goes unanswered before site
// names it on stderr (backends.Run.Slow); tests shorten it.
var slowRequestAfter = backends.DefaultSlowAfter

// watchSlow has run name, among the progress lines, each request a
// server leaves unanswered for slowRequestAfter, and again each time
// its wait doubles: a stopped server otherwise leaves diff and apply
// silent for every try of a request. Call it before the run's first
// request.
func (p *progress) watchSlow(run *backends.Run) {
	run.SlowAfter = slowRequestAfter
	run.Slow = func(a backends.Awaited, waited time.Duration) {
		p.say(fmt.Sprintf("site: waiting for %s to answer %s (%s)...", a.Server, a.Request, waited.Round(time.Second)))
	}
	run.Progress = func(line string) { p.say("site: " + line) }
}

// waitingFor names requests in flight for a message: "PowerDNS pdns
// (URL) to answer GET zones/a.", at most three of them.
func waitingFor(as []backends.Awaited) string {
	const most = 3
	var parts []string
	for i, a := range as {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(as)-most))
			break
		}
		parts = append(parts, a.Server+" to answer "+a.Request)
	}
	return strings.Join(parts, ", ")
}
