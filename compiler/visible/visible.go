// Package visible shows text that site did not write (a spec's values,
// a server's answers) as one line of plain text: control characters,
// format characters and invalid UTF-8 become Go escapes, and Quoted
// text from a server is shortened to a size a reader can use.
//
// Shown raw, a newline in such text starts a line the log of a
// pull-request check runs as a workflow command (::error::,
// ::add-mask::, ::stop-commands::), an escape sequence drives the
// reader's terminal, and a right-to-left override reorders what the
// line seems to say. Escaped, the reader still sees every byte.
//
// It imports nothing of site's, so backends, which never depend on
// CUE, use it as the compiler does.
package visible

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every control character (C0, DEL, C1), Unicode
// format character (the bidirectional overrides among them), line or
// paragraph separator and invalid UTF-8 byte written as a Go escape
// ("\n", "\x1b", "\u202e"), and everything else as it is.
func String(s string) string {
	i := strings.IndexFunc(s, hidden)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case hidden(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Limits of Short: no message site writes needs more of a server's text
// than a DNS name or a sentence, and a server (or whoever wrote into
// it) can answer with megabytes.
const (
	maxShown = 512 // longest text shown whole
	keepHead = 200 // bytes kept from the start of a longer one
	keepTail = 40  // and from its end
)

// Short is String for text a server answered with (an error message,
// a comment written beside a record): shown escaped, and when longer
// than 512 bytes, as its first 200 and last 40 bytes around its length.
func Short(s string) string {
	if len(s) > maxShown {
		head, tail := s[:keepHead], s[len(s)-keepTail:]
		for len(head) > 0 && !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
		for len(tail) > 0 && !utf8.ValidString(tail) {
			tail = tail[1:]
		}
		return fmt.Sprintf("%s…[%d bytes]…%s", String(head), len(s), String(tail))
	}
	return String(s)
}

// Pos renders a position in a spec as file:line:col, the file alone
// when line is 0. The file's name is a pull request's to choose, so it
// is shown as String shows it.
func Pos(file string, line, col int) string {
	if line == 0 {
		return String(file)
	}
	return fmt.Sprintf("%s:%d:%d", String(file), line, col)
}
