package main

import "github.com/site-tools/site/compiler/words"

// The words site's output shares between commands: counts of things and
// indented multi-line reasons.

// count, indentLines and shellQuote are words.Count, words.IndentLines
// and words.ShellQuote, under the names cmd/site's files call them by.
var (
	count       = words.Count
	indentLines = words.IndentLines
	shellQuote  = words.ShellQuote
)

// them is "it" of one thing and "them" of several.
func them(n int) string { return words.Plural(n, "it", "them") }
