package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// row is one line of the table: site's measure, what it is compared
// with, the ratio, and issue 13's target for it when there is one.
type row struct {
	name    string
	site    string
	against string
	ratio   float64 // 0: none
	unit    string  // what the ratio compares: "wall", "memory"
	label   string  // the ratio as shown, when unit cannot say it
	target  float64 // 0: no target
}

func (r row) verdict() string {
	switch {
	case r.target == 0 || r.ratio == 0:
		return ""
	case r.ratio <= r.target:
		return "met"
	default:
		return "NOT MET"
	}
}

func (r row) ratioText() string {
	if r.label != "" {
		return r.label
	}
	if r.ratio == 0 {
		return "—"
	}
	text := fmt.Sprintf("%.2f", r.ratio)
	if r.target != 0 && r.ratio > r.target && text == fmt.Sprintf("%.2f", r.target) {
		// 1.003 against a target of 1 is NOT MET: two decimals would
		// print the same number as the target beside it.
		text = fmt.Sprintf("%.3f", r.ratio)
	}
	return fmt.Sprintf("%s× %s", text, r.unit)
}

func (r row) targetText() string {
	if r.target == 0 {
		return ""
	}
	return fmt.Sprintf("≤ %.1f×", r.target)
}

// printTable writes rows as a Markdown table, padded to line up in a
// terminal too, so that it pastes into the README as it is.
func printTable(w io.Writer, rows []row) error {
	cells := [][]string{{"case", "site", "compared with", "ratio", "target", ""}, nil}
	for _, r := range rows {
		cells = append(cells, []string{r.name, r.site, r.against, r.ratioText(), r.targetText(), r.verdict()})
	}
	width := make([]int, len(cells[0]))
	for _, line := range cells {
		for i, c := range line {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		for i := range width {
			c := strings.Repeat("-", width[i]) // the header's rule
			if line != nil {
				c = line[i] + strings.Repeat(" ", width[i]-utf8.RuneCountInString(line[i]))
			}
			fmt.Fprintf(&b, "| %s ", c)
		}
		b.WriteString("|\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratio is a/b, or 0 when b is nothing.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
