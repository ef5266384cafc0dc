package compiler

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
)

// TestGuardRegexp: a guarded call gives what the builtin gives when its
// arguments are within maxRegexpProduct, and fails at the call past it.
func TestGuardRegexp(t *testing.T) {
	big := fmt.Sprintf("%q", strings.Repeat("x", 1<<12)) // 4097 × 4097 > 1<<24
	for _, tc := range []struct {
		name, src string
		at        string // line:col of the failure, "" for none
	}{
		{"replace", `import "regexp"
x: regexp.ReplaceAll("\\.", "a.b.c", "-")`, ""},
		{"replace with groups", `import "regexp"
x: regexp.ReplaceAll("(a)(b)", "abab", "$2$1")`, ""},
		{"literal", `import "regexp"
x: regexp.ReplaceAllLiteral("a", "abab", "$1")`, ""},
		{"find all", `import "regexp"
x: regexp.FindAll("[ab]", "abcab", -1)`, ""},
		{"submatches", `import "regexp"
x: regexp.FindAllSubmatch("(a)(b)", "abab", 1)`, ""},
		{"named", `import "regexp"
x: regexp.FindAllNamedSubmatch("(?P<l>a)", "aa", -1)`, ""},
		{"nested, aliased, names shadowed", `import re "regexp"
len: 3
error: "e"
siteRegexpArgs: "t"
x: re.ReplaceAll("b", re.ReplaceAll("a", siteRegexpArgs+"a", "b"), "c")`, ""},
		{"references", `import "regexp"
_p: "a"
_s: "banana"
x: [for m in regexp.FindAll(_p, _s, -1) {m + "!"}]`, ""},
		{"no match stays an error", `import "regexp"
x: regexp.FindAll("z", "a", -1)`, "2:4"},
		{"replacement too long", `import "regexp"
_s: ` + big + `
x: regexp.ReplaceAll("", "x" + _s, _s)`, "3:4"},
		{"pattern too long", `import "regexp"
_s: ` + big + `
x: regexp.FindAll("(" + _s + ")?", _s, -1)`, "3:4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package tenants\n" + tc.src
			guarded, plain := evalGuarded(t, src, true), evalGuarded(t, src, false)
			gotErr := guarded.Validate(cue.Concrete(true))
			if tc.at == "" || tc.name == "no match stays an error" {
				if fmt.Sprint(guarded) != fmt.Sprint(plain) {
					t.Errorf("guarded gives\n%v\nwant what the builtin gives\n%v", guarded, plain)
				}
			}
			switch {
			case tc.at == "" && gotErr != nil:
				t.Errorf("got %v, want no error", gotErr)
			case tc.at != "" && gotErr == nil:
				t.Errorf("got no error, want one at %s", tc.at)
			case gotErr != nil:
				at := shiftLine(tc.at)
				var found bool
				for _, e := range errors.Errors(gotErr) {
					for _, p := range errors.Positions(e) {
						found = found || fmt.Sprintf("%d:%d", p.Line(), p.Column()) == at
					}
				}
				if !found {
					t.Errorf("got %v at %v, want it at %s", gotErr, errors.Positions(gotErr), at)
				}
				if tc.name != "no match stays an error" && !strings.Contains(gotErr.Error(), "may be at most 16777216") {
					t.Errorf("got %v, want the bound named", gotErr)
				}
			}
		})
	}
}

// evalGuarded evaluates src, its regexp calls guarded or not.
func evalGuarded(t *testing.T, src string, guard bool) cue.Value {
	t.Helper()
	f, err := parser.ParseFile("a.cue", src)
	if err != nil {
		t.Fatal(err)
	}
	if d := checkBuiltins("a.cue", f); d != nil {
		t.Fatal(d.Format(nil))
	}
	if guard {
		guardRegexp(f)
	}
	return cuecontext.New().BuildFile(f)
}

// TestRegexpGrowthWithinBudget loads the hostile specs whose regexp
// calls built hundreds of MB in steps the watchdog saw too late (issue
// 27, finding 5): each ends in a diagnostic at the call, and the
// process's peak memory stays under the memory budget it was given.
func TestRegexpGrowthWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("loads hostile specs in processes of their own")
	}
	for _, name := range []string{"cue_import_regexp_replaceall", "cue_import_regexp_findall"} {
		t.Run(name, func(t *testing.T) {
			file := "testdata/hostile/" + name + ".cue"
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			call := bytes.Index(src, []byte("regexp."+map[bool]string{true: "Replace", false: "FindAll"}[strings.Contains(name, "replace")]))
			line := bytes.Count(src[:call], []byte("\n")) + 1
			col := call - bytes.LastIndexByte(src[:call], '\n')
			ctx, cancel := context.WithTimeout(context.Background(), hostileBudget.EvalTimeout+60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), hostileFileEnv+"="+file)
			out, _ := cmd.CombinedOutput()
			want := fmt.Sprintf("%s.cue:%d:%d: ", name, line, col)
			var diagnosed bool
			var peak uint64
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				diagnosed = diagnosed || strings.HasPrefix(sc.Text(), "DIAG ") && strings.Contains(sc.Text(), want)
				fmt.Sscanf(sc.Text(), "PEAK %d", &peak)
			}
			if !diagnosed {
				t.Errorf("no diagnostic at %s:\n%.2000s", want, out)
			}
			if peak == 0 {
				t.Fatalf("the child did not say its peak memory (PEAK):\n%.2000s", out)
			}
			if peak > hostileBudget.EvalMemory {
				t.Errorf("peak memory %s, over the budget of %s", FormatSize(peak), FormatSize(hostileBudget.EvalMemory))
			}
		})
	}
}
