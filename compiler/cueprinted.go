package compiler

import "strings"

// This file reads values as CUE prints them in its messages
// ({a:1,b:["x"]}), to quote a user's own fields back to them.

// topField is the value of field in s, a struct as CUE prints it in a
// message ({a:1,b:["x"]}), or "" when s has no such field at its top.
func topField(s, field string) string {
	value := ""
	scanPrinted(s, func(i int, c byte, depth int) bool {
		if (c == '{' && depth == 0 || c == ',' && depth == 1) && strings.HasPrefix(s[i+1:], field+":") {
			value = valueAt(s[i+1+len(field)+1:])
			return false
		}
		return true
	})
	return value
}

// valueAt is the value at the start of s, up to the comma or brace that
// ends it at its own depth.
func valueAt(s string) string {
	end := len(s)
	scanPrinted(s, func(i int, c byte, depth int) bool {
		if (c == ',' || c == '}') && depth == 0 {
			end = i
			return false
		}
		return true
	})
	return s[:end]
}

// scanPrinted walks s, a value as CUE prints it, and calls visit with
// each byte outside a string and the depth of braces and brackets it
// stands at, until visit returns false. One walk for topField and
// valueAt, so both skip strings (and the escapes in them) alike.
func scanPrinted(s string, visit func(i int, c byte, depth int) bool) {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		if !visit(i, c, depth) {
			return
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
}
