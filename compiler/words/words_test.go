package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{1, "zone", nil, "1 zone"},
		{0, "zone", nil, "0 zones"},
		{3, "zone", nil, "3 zones"},
		{2, "entry", nil, "2 entries"},
		{2, "key", nil, "2 keys"}, // a vowel before the y
		{2, "y", nil, "2 ys"},
		{1, "upload or seed was", []string{"uploads or seeds were"}, "1 upload or seed was"},
		{2, "upload or seed was", []string{"uploads or seeds were"}, "2 uploads or seeds were"},
		{2, "batch", []string{"batches"}, "2 batches"},
		// TestCountPlurals's, from cmd/site's copy of Count.
		{1, "entry", nil, "1 entry"},
		{3, "key", nil, "3 keys"},
		{1, "step", nil, "1 step"},
	} {
		if got := Count(tc.n, tc.one, tc.many...); got != tc.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tc.n, tc.one, tc.many, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n         int
		one, many string
		want      string
	}{
		{1, "gate is", "gates are", "gate is"},
		{2, "gate is", "gates are", "gates are"},
		{0, "step", "steps", "steps"},
	} {
		if got := Plural(tc.n, tc.one, tc.many); got != tc.want {
			t.Errorf("Plural(%d, %q, %q) = %q, want %q", tc.n, tc.one, tc.many, got, tc.want)
		}
	}
}

func TestIndentLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"one line", "one line"},
		{"first\nsecond\n", "first\n    second"},
		{"a\n\nb\n\n", "a\n    \n    b"},
	} {
		if got := IndentLines(tc.in, "    "); got != tc.want {
			t.Errorf("IndentLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestShellQuote: a plain word as it is; anything else single-quoted,
// with a single quote closed, escaped and reopened.
func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tenants/office1.cue", "tenants/office1.cue"},
		{"GATE-DNS-OVERWRITE", "GATE-DNS-OVERWRITE"},
		{"my file.cue", "'my file.cue'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"", "''"},
	} {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
