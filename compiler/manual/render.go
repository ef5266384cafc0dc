package manual

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// This file prints the manual as site help shows it: the list of
// topics, and a topic as Markdown or rendered for a terminal.

// Names are the topics' names, in reading order.
func Names() []string {
	var names []string
	for _, t := range Topics() {
		names = append(names, t.Name)
	}
	return names
}

// WriteList prints the topics, each with its title: a title is one
// short line, where a topic's first sentence would have to be cut.
func WriteList(w io.Writer) {
	topics := Topics()
	width := 0
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	fmt.Fprintln(w, "site help TOPIC prints one of these; site COMMAND --help a command's flags.")
	fmt.Fprintln(w)
	for _, t := range topics {
		fmt.Fprintf(w, "  %-*s  %s\n", width, t.Name, oneLine(t.Title, 96-width))
	}
}

// oneLine is s cut to n characters.
func oneLine(s string, n int) string {
	if len([]rune(s)) > n {
		s = string([]rune(s)[:n-3]) + "..."
	}
	return s
}

// Write prints t as Markdown, or rendered for a terminal (RenderText),
// bold when bold is true.
func (t Topic) Write(w io.Writer, markdown, bold bool) {
	if markdown {
		fmt.Fprint(w, strings.TrimRight(t.Body, "\n")+"\n")
		return
	}
	fmt.Fprint(w, RenderText(t.Body, bold))
}

// mdLink is a Markdown link, [text](target).
var mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)

// RenderText renders a help topic's Markdown as plain text for a
// terminal: headings without their #, underlined, bold when bold is
// true (a terminal without NO_COLOR); code blocks indented, without
// fences; links as "text (target)". Everything else is left as written,
// which reads well as it is.
func RenderText(md string, bold bool) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(strings.TrimRight(md, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
		case inCode:
			if line == "" {
				b.WriteString("\n")
			} else {
				b.WriteString("    " + line + "\n")
			}
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := strings.TrimSpace(line[level:])
			under := "-"
			if level == 1 {
				under = "="
			}
			if bold {
				b.WriteString("\x1b[1m" + text + "\x1b[0m\n")
			} else {
				b.WriteString(text + "\n")
			}
			if level <= 2 {
				b.WriteString(strings.Repeat(under, len([]rune(text))) + "\n")
			}
		default:
			b.WriteString(mdLink.ReplaceAllString(line, "$1 ($2)") + "\n")
		}
	}
	return b.String()
}
