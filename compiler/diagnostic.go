package compiler

import (
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// Diagnostic is one problem in a spec, positioned in the user's file.
type Diagnostic struct {
	// Pos is where the problem is: the spec element at fault. A missing
	// path or an unreadable file has a Pos with a file and no line.
	Pos model.Pos
	// Related are the other spec elements involved, e.g. the second
	// writer of a name.
	Related []model.Pos
	// Path is the CUE path of the element, e.g.
	// tenants.sjc.dns.zones."sjc.example.net".records.www; empty when the
	// problem is the file itself.
	Path string
	// Msg says what is wrong and, where it helps, what to write instead.
	Msg string
	// Warning marks what does not make the spec invalid: it loads and
	// does what it says, but most likely not what its author meant (a DS
	// that no NS delegates). It is rendered with "warning: " before its
	// path, and a spec with warnings alone loads (Options.Warn).
	Warning bool
}

// FormatPos renders p as file:line:col (file alone when p has no line).
// The file's name is the pull request's to choose, so it is shown as
// Visible shows it.
func FormatPos(p model.Pos) string { return visible.Pos(p.File, p.Line, p.Col) }

// Visible returns s as one line of plain text (see package visible):
// control and format characters, line separators and invalid UTF-8 as
// Go escapes ("\n", "\x1b", "\u202e"), everything else as it is.
//
// Diagnostics quote what a spec holds, and a spec arrives as a pull
// request: a value that is not valid is quoted all the same, a file's
// name is the author's to choose, and CUE's own messages quote values
// as they are.
func Visible(s string) string { return visible.String(s) }

// Format renders d on one line, "file:line:col: path: message (also at
// file:line:col)", "file:line:col: warning: path: ..." for a warning,
// with every position passed through rel (for example to make file
// names relative to the working directory).
func (d Diagnostic) Format(rel func(model.Pos) model.Pos) string {
	if rel == nil {
		rel = func(p model.Pos) model.Pos { return p }
	}
	var b strings.Builder
	b.WriteString(FormatPos(rel(d.Pos)))
	b.WriteString(": ")
	if d.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message(rel))
	return b.String()
}

// Message is the diagnostic without its own position: the path, the
// message and the related positions, shown as Visible shows them, so
// that it is one line.
func (d Diagnostic) Message(rel func(model.Pos) model.Pos) string {
	if rel == nil {
		rel = func(p model.Pos) model.Pos { return p }
	}
	var b strings.Builder
	if d.Path != "" {
		b.WriteString(Visible(d.Path))
		b.WriteString(": ")
	}
	b.WriteString(Visible(d.Msg))
	if len(d.Related) > 0 {
		b.WriteString(" (also at ")
		for i, r := range d.Related {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(FormatPos(rel(r)))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (d Diagnostic) Error() string { return d.Format(nil) }

// Diagnostics is every problem found in a set of specs, sorted by
// position. Load returns it as its error when a spec is invalid, its
// warnings included.
type Diagnostics []Diagnostic

// Error renders one diagnostic per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.Error()
	}
	return strings.Join(lines, "\n")
}

// sort orders diagnostics by file, line, column, then message, and drops
// exact duplicates (CUE reports some errors once per conjunct).
func (ds Diagnostics) sort() Diagnostics {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Msg < b.Msg
	})
	out := ds[:0]
	for _, d := range ds {
		if len(out) > 0 && d.Error() == out[len(out)-1].Error() {
			continue
		}
		out = append(out, d)
	}
	return out
}
