package main

import (
	"fmt"
	"strings"
)

// The words site's output shares between commands: counts of things and
// indented multi-line reasons.

// count says "1 zone" or "3 zones".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// indentLines indents every line of s but the first, so that a
// multi-line reason stays inside the list item it belongs to.
func indentLines(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
