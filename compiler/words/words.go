// Package words spells what site's messages share between commands and
// backends: counts of things ("1 zone", "3 entries") and multi-line
// reasons indented to stay inside the list item they belong to. It is
// one rule in one place, so that every message counts alike.
//
// It imports nothing of site's, so backends, which never depend on
// CUE, use it as the compiler and the commands do.
package words

import (
	"fmt"
	"regexp"
	"strings"
)

// Count says "1 zone" or "3 zones": n and one of a single thing, else
// n and many when given, else one's plural ("entry", "entries").
func Count(n int, one string, many ...string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many...))
}

// Plural is one of a single thing, else many when given, else one's
// plural: one and "s", or "ies" for a "y" after a consonant.
func Plural(n int, one string, many ...string) string {
	switch {
	case n == 1:
		return one
	case len(many) > 0:
		return many[0]
	}
	if stem, ok := strings.CutSuffix(one, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return stem + "ies"
	}
	return one + "s"
}

// IndentLines indents every line of s but the first, so that a
// multi-line reason stays inside the list item it belongs to; trailing
// newlines are dropped.
func IndentLines(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// ShellQuote quotes s for a POSIX shell when it needs it, so that a
// command line site prints (with a path, a target, a name read from a
// server) can be pasted back as it is.
func ShellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
