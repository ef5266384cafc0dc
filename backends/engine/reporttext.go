package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// This file renders what the engine did for a person: the report after
// apply, and the words and colours progress lines share with it.

// Progress words for observing; applying uses the Status values above.
const (
	StatusObserved Status = "observed"
	StatusBlocked  Status = "blocked"
	StatusStopped  Status = "not observed (interrupted)"
	// StatusRefused marks a planned change apply did not make (impact
	// refused); it counts changes, not steps.
	StatusRefused Status = "refused"
)

// WriteText renders r: one block per step that did something or was
// held back (unchanged steps are counted, not listed), then one summary
// line. Colour only when color is true.
func (r *Report) WriteText(w io.Writer, color bool) error {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + "\x1b[0m"
	}
	for _, s := range r.Steps {
		// A refused change is named by its own key, which says what
		// was refused (a network's removal, its mode change).
		for _, c := range s.Refused {
			fmt.Fprintf(&b, "%s %s: %s %s\n", paint(ColorFor(StatusRefused), fmt.Sprintf("%-9s", StatusRefused)), c.Key, c.Action, c.Reason)
		}
		if s.Status == StatusUnchanged {
			continue
		}
		word := fmt.Sprintf("%-9s", s.Status)
		fmt.Fprintf(&b, "%s %s", paint(ColorFor(s.Status), word), s.Step)
		switch s.Status {
		case StatusApplied:
			one := Report{Steps: []StepReport{s}}
			fmt.Fprintf(&b, ": %s, %s", DescribeChanges(s.Changes), one.DescribeCalls())
		case StatusPending:
			fmt.Fprintf(&b, ": %s", DescribeWaiting(s))
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
	b.WriteString(r.Summary())
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Counts says how many steps ended how, e.g. "2 applied, 3 unchanged;
// 2 reads, 2 writes, 2 DNS queries".
func (r *Report) Counts() string {
	var parts []string
	for _, st := range []Status{StatusApplied, StatusPending, StatusPartial, StatusUnchanged, StatusFailed, StatusSkipped, StatusDeferred} {
		if n := r.Count(st); n > 0 || st == StatusApplied {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if n := r.Refused(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, StatusRefused))
	}
	problems := 0
	for _, s := range r.Steps {
		problems += len(s.Problems)
	}
	if problems > 0 {
		parts = append(parts, words.Count(problems, "problem"))
	}
	return fmt.Sprintf("%s; %s", strings.Join(parts, ", "), r.DescribeCalls())
}

// DescribeCalls says what r's applies asked of the backends, e.g.
// "2 reads, 1 write, 1 DNS query": API reads and writes apart, the API
// calls of backends that do not tell them apart as requests, and the
// DNS queries verification made.
func (r *Report) DescribeCalls() string {
	reads, writes, unsplit, queries := r.Calls()
	var parts []string
	if reads+writes > 0 || unsplit == 0 {
		parts = append(parts, words.Count(reads, "read"), words.Count(writes, "write"))
	}
	if unsplit > 0 {
		parts = append(parts, words.Count(unsplit, "request"))
	}
	if queries == 1 {
		parts = append(parts, "1 DNS query")
	} else if queries > 1 {
		parts = append(parts, fmt.Sprintf("%d DNS queries", queries))
	}
	return strings.Join(parts, ", ")
}

// Summary is the report's last line, e.g. "Apply complete: 2 applied,
// 3 unchanged; 2 reads, 2 writes, 2 DNS queries.", "Apply failed: ..."
// or "Apply interrupted: ...".
func (r *Report) Summary() string {
	head := "Apply complete"
	switch {
	case r.Interrupted:
		head = "Apply interrupted"
	case !r.OK():
		head = "Apply failed"
	}
	return head + ": " + r.Counts() + "."
}

// DescribeWaiting says that a pending step's changes were made before
// and wait for a restart (StatusPending).
func DescribeWaiting(s StepReport) string {
	until := "the guest's next boot"
	if s.Phase == plan.PhaseNetwork {
		until = "the network's next restart"
	}
	return words.Count(s.Waiting, "change") + " already written, waiting for " + until + "; nothing to do now"
}

// DescribeChanges says how many changes, as a plan's summary does.
func DescribeChanges(n int) string {
	if n == 0 {
		return "no changes"
	}
	return words.Count(n, "change")
}

// ColorFor is the terminal colour of a status word: red for trouble,
// yellow for what was held back, green for done, dim for the rest.
func ColorFor(st Status) string {
	switch st {
	case StatusBlocked, StatusFailed, StatusPartial:
		return "\x1b[31m" // red
	case StatusSkipped, StatusDeferred, StatusPending, StatusRefused, StatusStopped:
		return "\x1b[33m" // yellow
	case StatusApplied, StatusObserved:
		return "\x1b[32m" // green
	}
	return "\x1b[2m" // dim
}
