package main

import (
	"regexp"
	"strings"
)

// mdLink is a Markdown link, [text](target).
var mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)

// renderText renders a help topic's Markdown as plain text for a
// terminal: headings without their #, underlined, bold when bold is
// true (a terminal without NO_COLOR); code blocks indented, without
// fences; links as "text (target)". Everything else is left as written,
// which reads well as it is.
func renderText(md string, bold bool) string {
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
