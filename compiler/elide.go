package compiler

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Diagnostics quote what the user wrote, and a hostile spec can write a
// megabyte in one label or string: echoed in a path and a message, its
// diagnostics would be larger than the spec, and a pull-request check
// would post them as annotations. No legitimate token in a message is
// longer than a DNS name (253 octets) in a quoted path, so longer runs
// without a space are shortened to their ends and their length. So are
// longer quoted values with spaces in them: a few hundred bytes of CUE
// make a string of megabytes, and a message may quote it twice ("got
// X, want a list: write [X]"), once for every use.
const (
	maxRun  = 512 // longest run of non-space bytes kept whole
	keepRun = 200 // bytes kept from each end of a longer one (tail: 40)
)

// elided returns ds with every over-long run in a path or message
// shortened.
func (ds Diagnostics) elided() Diagnostics {
	for i := range ds {
		ds[i].Path = elide(ds[i].Path)
		ds[i].Msg = elide(ds[i].Msg)
	}
	return ds
}

func elide(s string) string {
	if len(s) <= maxRun {
		return s
	}
	s = elideQuoted(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		run := s[i:j]
		if len(run) > maxRun {
			head, tail := run[:keepRun], run[len(run)-40:]
			for !utf8.ValidString(head) {
				head = head[:len(head)-1]
			}
			for !utf8.ValidString(tail) {
				tail = tail[1:]
			}
			run = fmt.Sprintf("%s…[%d bytes]…%s", head, len(run), tail)
		}
		b.WriteString(run)
		if j < len(s) {
			b.WriteByte(' ')
		}
		i = j + 1
	}
	return b.String()
}

// elideQuoted shortens every quoted value ("...", with backslash
// escapes) longer than maxRun that holds a space, keeping its quotes;
// one without a space is a run, which elide shortens. An unclosed quote
// leaves the rest as it is.
func elideQuoted(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break
		}
		if body := s[i+1 : j]; len(body) > maxRun && strings.Contains(body, " ") {
			head, tail := body[:keepRun], body[len(body)-40:]
			for !utf8.ValidString(head) {
				head = head[:len(head)-1]
			}
			for !utf8.ValidString(tail) {
				tail = tail[1:]
			}
			b.WriteString(s[last : i+1])
			fmt.Fprintf(&b, "%s…[%d bytes]…%s", head, len(body), tail)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
