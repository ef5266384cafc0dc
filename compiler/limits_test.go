package compiler

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"
)

// TestSyntaxLimits pins where the checks before CUE refuse a spec, and
// that specs shaped like real ones (long lists, many fields, nested
// interpolations) pass them.
func TestSyntaxLimits(t *testing.T) {
	const head = "package tenants\n\ntenants: a: {\n\tdomain: \"a.example.test\"\n"
	for _, tc := range []struct {
		name string
		src  string
		want string // the diagnostic, "" when both checks pass
	}{
		{"100k list elements", head + "\t_x: [" + strings.Repeat("1, ", 100_000) + "]\n}\n", ""},
		{"100k fields", head + "\t_x: {\n" + strings.Repeat("\tf: 1\n", 100_000) + "}\n}\n", ""},
		{"interpolations", head + "\t_x: \"a\\(1+2)b\\(\"c\\(3)d\")e\\([1, 2][0])\"\n}\n", ""},
		{"sum at the depth limit", head + "\t_x: " + strings.Repeat("1 + ", maxDepth-10) + "1\n}\n", ""},
		{"sum past the depth limit", head + "\t_x: " + strings.Repeat("1 + ", maxDepth) + "1\n}\n",
			"a.cue:5:6: nested more than 1000 levels deep (structs, lists, or a long chain of operators); split it into named fields"},
		{"structs past the depth limit", head + "\t_x: " + strings.Repeat("{a: ", maxDepth/2) + "1" + strings.Repeat("}", maxDepth/2) + "\n}\n",
			"a.cue:5:1991: nested more than 1000 levels deep (structs, lists, or a long chain of operators); split it into named fields"},
		{"selector chain past the token limit", head + "\t_x: _y" + strings.Repeat(".a", maxChain) + "\n}\n",
			"a.cue:5:10000: more than 10000 tokens chained in one expression (operators, selectors, labels or brackets without a comma between); split it into named fields"},
		{"chain in an interpolation", head + "\t_x: \"\\(" + strings.Repeat("1+", maxChain) + "1)\"\n}\n",
			"a.cue:5:10001: more than 10000 tokens chained in one expression (operators, selectors, labels or brackets without a comma between); split it into named fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := checkTokens("a.cue", []byte(tc.src))
			if d == nil {
				f, err := parser.ParseFile("a.cue", tc.src)
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				d = checkDepth("a.cue", f)
			}
			got := ""
			if d != nil {
				got = d.Format(nil)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGuardedPanic: a panic while evaluating (here an evaluator without
// a CUE context) becomes a diagnostic at the file, not a stack trace.
// The file refers to a hidden field, so that it is not plain data and
// CUE is asked (plainschema.go).
func TestGuardedPanic(t *testing.T) {
	r := (&evaluator{}).guarded(input{path: "a.cue", data: []byte("package tenants\n\n_d: \"a.example.test\"\ntenants: a: domain: _d\n")})
	if !r.panicked || len(r.diags) != 1 {
		t.Fatalf("got %+v, want one diagnostic from a panic", r)
	}
	const want = "a.cue:1:1: evaluating this file failed inside site or CUE ("
	if got := r.diags[0].Format(nil); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "); this is a bug: please report it with the file") {
		t.Errorf("got %q, want it to start with %q", got, want)
	}
}
