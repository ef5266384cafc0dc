package backends

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Progress statuses that only observing uses; applying uses Status.
const (
	statusOK      Status = "observed"
	statusBlocked Status = "blocked"
)

// progress writes one line per finished step. On a terminal the line
// updates in place so a long run does not scroll the plan away; lines
// about trouble (blocked, failed, skipped) stay on screen. Elsewhere
// (CI logs, pipes) every line is kept, without escape codes.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	color bool
	verb  string
	total int
	n     int
	open  bool // a live line is on screen
}

// liveWidth keeps a live line within one terminal row: a wrapped line
// cannot be rewritten with a carriage return.
const liveWidth = 100

func (e *Engine) progress(total int, verb string) *progress {
	if e.Progress == nil {
		return nil
	}
	live := isTerminal(e.Progress)
	return newProgress(e.Progress, total, verb, live, live && os.Getenv("NO_COLOR") == "")
}

func newProgress(w io.Writer, total int, verb string, live, color bool) *progress {
	return &progress{w: w, total: total, verb: verb, live: live, color: color}
}

// isTerminal reports whether w is a character device such as a TTY.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// step reports one finished step. A nil progress is silent.
func (p *progress) step(id string, st Status, detail string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
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
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.open = false
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.verb, summary)
}

func trouble(st Status) bool {
	switch st {
	case statusBlocked, StatusFailed, StatusSkipped:
		return true
	}
	return false
}

func colorFor(st Status) string {
	switch st {
	case statusBlocked, StatusFailed:
		return "\x1b[31m" // red
	case StatusSkipped, StatusDeferred:
		return "\x1b[33m" // yellow
	case StatusApplied, statusOK:
		return "\x1b[32m" // green
	}
	return "\x1b[2m" // dim
}
