package main

import (
	"fmt"
	"strings"
)

// The words site's output shares between commands: counts of things and
// indented multi-line reasons.

// count says "1 zone" or "3 zones", "1 entry" or "2 entries".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return fmt.Sprintf("%d %sies", n, stem)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// them is "it" of one thing and "them" of several.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// indentLines indents every line of s but the first, so that a
// multi-line reason stays inside the list item it belongs to.
func indentLines(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
