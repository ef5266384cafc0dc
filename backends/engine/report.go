package backends

import (
	"fmt"
	"io"
	"strings"
)

// WriteText renders the report for a person: one block per step that did
// something or was held back (unchanged steps are counted, not listed),
// then one summary line. Colour only when color is true.
func (r *Report) WriteText(w io.Writer, color bool) error {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + "\x1b[0m"
	}
	for _, s := range r.Steps {
		if s.Status == StatusUnchanged {
			continue
		}
		word := fmt.Sprintf("%-9s", s.Status)
		fmt.Fprintf(&b, "%s %s", paint(colorFor(s.Status), word), s.Step)
		switch s.Status {
		case StatusApplied:
			fmt.Fprintf(&b, ": %s, %d %s", describeChanges(s.Changes), s.Requests, plural(s.Requests, "request", "requests"))
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
	b.WriteString(r.summary())
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// counts says how many steps ended how, e.g. "2 applied, 3 unchanged;
// 4 requests".
func (r *Report) counts() string {
	var parts []string
	for _, st := range []Status{StatusApplied, StatusUnchanged, StatusFailed, StatusSkipped, StatusDeferred} {
		if n := r.Count(st); n > 0 || st == StatusApplied {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	problems := 0
	for _, s := range r.Steps {
		problems += len(s.Problems)
	}
	if problems > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", problems, plural(problems, "problem", "problems")))
	}
	n := r.Requests()
	return fmt.Sprintf("%s; %d %s", strings.Join(parts, ", "), n, plural(n, "request", "requests"))
}

// summary is the report's last line, e.g. "Apply complete: 2 applied,
// 3 unchanged; 4 requests." or "Apply failed: ...".
func (r *Report) summary() string {
	head := "Apply complete"
	if !r.OK() {
		head = "Apply failed"
	}
	return head + ": " + r.counts() + "."
}
