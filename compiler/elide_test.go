package compiler

import (
	"strings"
	"testing"
)

func TestElide(t *testing.T) {
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct{ in, want string }{
		{"short message", "short message"},
		{strings.Repeat("word ", 200), strings.Repeat("word ", 200)}, // long, but no long run
		{`label "` + long + `" is too long; shorten it`,
			`label "` + strings.Repeat("x", 199) + `…[1002 bytes]…` + strings.Repeat("x", 39) + `" is too long; shorten it`},
		{strings.Repeat("é", 600), strings.Repeat("é", 100) + "…[1200 bytes]…" + strings.Repeat("é", 20)},
		// A quoted value with spaces is shortened within its quotes; an
		// escaped quote does not end it, and short ones stay.
		{`got "` + strings.Repeat("a ", 300) + `\" x", want "b c"`,
			`got "` + strings.Repeat("a ", 100) + `…[604 bytes]…` + strings.Repeat("a ", 18) + `\" x", want "b c"`},
		{`an open "` + strings.Repeat("a ", 300), `an open "` + strings.Repeat("a ", 300)},
	} {
		if got := elide(tc.in); got != tc.want {
			t.Errorf("elide(%.40q...): got %q, want %q", tc.in, got, tc.want)
		}
	}
}
