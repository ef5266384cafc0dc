package compiler

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"
)

// TestCheckBuiltins: strconv.FormatFloat with a precision of 10^9
// allocated 2.2 GB against a 1 GiB budget (issue 27, finding 5), in
// one call the watchdog cannot stop. A precision written as a number a
// float can use passes; any other use of the builtin is refused at it.
func TestCheckBuiltins(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		at        string // line:col of the refusal, "" for none
	}{
		{"small precision", `import "strconv"
x: strconv.FormatFloat(1.5, "f", 2, 64)`, ""},
		{"shortest", `import "strconv"
x: strconv.FormatFloat(1.5, "g", -1, 64)`, ""},
		{"the most digits", `import "strconv"
x: strconv.FormatFloat(1.5, "f", 1100, 64)`, ""},
		{"huge precision", `import "strconv"
x: strconv.FormatFloat(1.0, "f", 1000000000, 64)`, "2:34"},
		{"computed precision", `import "strconv"
p: 10
x: strconv.FormatFloat(1.0, "f", p, 64)`, "3:34"},
		{"through a field", `import s "strconv"
f: s.FormatFloat
x: f(1.0, "f", 2, 64)`, "2:4"},
		{"another package's FormatFloat", `import strconv "strings"
x: strconv.FormatFloat`, ""},
		{"no import", `x: strconv.FormatFloat`, ""},
		{"regexp growth called", `import "regexp"
x: regexp.ReplaceAll("a", "b", "c")`, ""},
		{"regexp growth through a field", `import re "regexp"
f: re.FindAll
x: f("a", "b", -1)`, "2:4"},
		{"regexp that does not grow, through a field", `import "regexp"
f: regexp.Find`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseFile("a.cue", "package tenants\n"+tc.src)
			if err != nil {
				t.Fatal(err)
			}
			d := checkBuiltins("a.cue", f)
			switch {
			case tc.at == "" && d != nil:
				t.Errorf("got %s, want no refusal", d.Format(nil))
			case tc.at != "" && d == nil:
				t.Errorf("got no refusal, want one at %s", tc.at)
			case d != nil:
				// Lines count the package clause prepended.
				if got := d.Format(nil); !strings.HasPrefix(got, "a.cue:"+shiftLine(tc.at)+": strconv.FormatFloat takes its precision as a number") &&
					!strings.HasPrefix(got, "a.cue:"+shiftLine(tc.at)+": regexp.FindAll can build far more than it is given") {
					t.Errorf("got %s, want it at %s", got, tc.at)
				}
			}
		})
	}
}

// shiftLine adds one to the line of "line:col".
func shiftLine(at string) string {
	line, col, _ := strings.Cut(at, ":")
	return string(rune(line[0]+1)) + ":" + col
}
