package visible

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\n::error::forged", `a\n::error::forged`},
		{"\x1b[2J", `\x1b[2J`},
		{"abc\u202edef", `abc\u202edef`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"ünïcode", "ünïcode"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShortKeepsTheEndsOfLongText(t *testing.T) {
	long := "\n" + strings.Repeat("x", 1<<20) + "é"
	got := Short(long)
	if len(got) > 300 {
		t.Errorf("Short of %d bytes is %d bytes, want at most 300", len(long), len(got))
	}
	if !strings.HasPrefix(got, `\nxxx`) || !strings.HasSuffix(got, "xé") || !strings.Contains(got, "…[1048579 bytes]…") {
		t.Errorf("Short = %q, want the escaped ends around the length", got)
	}
	if got := Short("short\x1b"); got != `short\x1b` {
		t.Errorf("Short(short) = %q, want it escaped whole", got)
	}
}

func TestPos(t *testing.T) {
	for _, tc := range []struct {
		file      string
		line, col int
		want      string
	}{
		{"tenants/a.cue", 3, 7, "tenants/a.cue:3:7"},
		{"tenants/a.cue", 0, 0, "tenants/a.cue"},
		{"tenants/a\n.cue", 1, 1, `tenants/a\n.cue:1:1`},
	} {
		if got := Pos(tc.file, tc.line, tc.col); got != tc.want {
			t.Errorf("Pos(%q, %d, %d) = %q, want %q", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
}
