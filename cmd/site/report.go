package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/plan"
)

// This file renders what the engine did for a person: the report after
// apply, and the words and colours progress lines share with it.

// writeReport renders rep: one block per step that did something or was
// held back (unchanged steps are counted, not listed), then one summary
// line. Colour only when color is true.
func writeReport(w io.Writer, rep *engine.Report, color bool) error {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + "\x1b[0m"
	}
	for _, s := range rep.Steps {
		// A refused change is named by its own key, which says what
		// was refused (a network's removal, its mode change).
		for _, c := range s.Refused {
			fmt.Fprintf(&b, "%s %s: %s %s\n", paint(colorFor(statusRefused), fmt.Sprintf("%-9s", statusRefused)), c.Key, c.Action, c.Reason)
		}
		if s.Status == engine.StatusUnchanged {
			continue
		}
		word := fmt.Sprintf("%-9s", s.Status)
		fmt.Fprintf(&b, "%s %s", paint(colorFor(s.Status), word), s.Step)
		switch s.Status {
		case engine.StatusApplied:
			one := engine.Report{Steps: []engine.StepReport{s}}
			fmt.Fprintf(&b, ": %s, %s", describeChanges(s.Changes), describeCalls(&one))
		case engine.StatusPending:
			fmt.Fprintf(&b, ": %s", describeWaiting(s))
		default:
			if s.Reason != "" {
				fmt.Fprintf(&b, ": %s", s.Reason)
			}
		}
		b.WriteString("\n")
		for _, p := range s.Problems {
			fmt.Fprintf(&b, "          %s %s\n", paint("\x1b[31m", "problem:"), p)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "          note: %s\n", n)
		}
	}
	b.WriteString(reportSummary(rep))
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// reportCounts says how many steps ended how, e.g. "2 applied,
// 3 unchanged; 2 reads, 2 writes, 2 DNS queries".
func reportCounts(rep *engine.Report) string {
	var parts []string
	for _, st := range []engine.Status{engine.StatusApplied, engine.StatusPending, engine.StatusPartial, engine.StatusUnchanged, engine.StatusFailed, engine.StatusSkipped, engine.StatusDeferred} {
		if n := rep.Count(st); n > 0 || st == engine.StatusApplied {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if n := rep.Refused(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, statusRefused))
	}
	problems := 0
	for _, s := range rep.Steps {
		problems += len(s.Problems)
	}
	if problems > 0 {
		parts = append(parts, count(problems, "problem"))
	}
	return fmt.Sprintf("%s; %s", strings.Join(parts, ", "), describeCalls(rep))
}

// describeCalls says what rep's applies asked of the backends, e.g.
// "2 reads, 1 write, 1 DNS query": API reads and writes apart, the API
// calls of backends that do not tell them apart as requests, and the
// DNS queries verification made.
func describeCalls(rep *engine.Report) string {
	reads, writes, unsplit, queries := rep.Calls()
	var parts []string
	if reads+writes > 0 || unsplit == 0 {
		parts = append(parts, count(reads, "read"), count(writes, "write"))
	}
	if unsplit > 0 {
		parts = append(parts, count(unsplit, "request"))
	}
	if queries == 1 {
		parts = append(parts, "1 DNS query")
	} else if queries > 1 {
		parts = append(parts, fmt.Sprintf("%d DNS queries", queries))
	}
	return strings.Join(parts, ", ")
}

// reportSummary is the report's last line, e.g. "Apply complete: 2
// applied, 3 unchanged; 2 reads, 2 writes, 2 DNS queries.", "Apply failed: ..." or "Apply
// interrupted: ...".
func reportSummary(rep *engine.Report) string {
	head := "Apply complete"
	switch {
	case rep.Interrupted:
		head = "Apply interrupted"
	case !rep.OK():
		head = "Apply failed"
	}
	return head + ": " + reportCounts(rep) + "."
}

// describeWaiting says that a pending step's changes were made before
// and wait for a restart (engine.StatusPending).
func describeWaiting(s engine.StepReport) string {
	until := "the guest's next boot"
	if s.Phase == plan.PhaseNetwork {
		until = "the network's next restart"
	}
	return count(s.Waiting, "change") + " already written, waiting for " + until + "; nothing to do now"
}

// describeChanges says how many changes, as a plan's summary does.
func describeChanges(n int) string {
	if n == 0 {
		return "no changes"
	}
	return count(n, "change")
}

// Progress words for observing; applying uses engine.Status.
const (
	statusObserved engine.Status = "observed"
	statusBlocked  engine.Status = "blocked"
	statusStopped  engine.Status = "not observed (interrupted)"
	// statusRefused marks a planned change apply did not make (impact
	// refused); it counts changes, not steps.
	statusRefused engine.Status = "refused"
)

func colorFor(st engine.Status) string {
	switch st {
	case statusBlocked, engine.StatusFailed, engine.StatusPartial:
		return "\x1b[31m" // red
	case engine.StatusSkipped, engine.StatusDeferred, engine.StatusPending, statusRefused, statusStopped:
		return "\x1b[33m" // yellow
	case engine.StatusApplied, statusObserved:
		return "\x1b[32m" // green
	}
	return "\x1b[2m" // dim
}
