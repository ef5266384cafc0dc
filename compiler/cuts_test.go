package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The checks after evaluation look at each name's ancestors (a cut, a
// DNAME, a wildcard above it). Done with a scan of the zone per name
// they were quadratic: these shapes, each a few hundred bytes with a
// comprehension, vetted for 11 to 63 s at 30,000 names (issue 27,
// finding 5). cutShapes writes each as literal lines, so that the
// checks, not CUE, are what is measured; testdata/hostile keeps the
// comprehension spellings.

// cutShape is one hostile shape: the records of zone a.example.test,
// one line per i in [0, n), and what vet says of it.
type cutShape struct {
	name string
	line func(i int) string
	// extra records, written once.
	extra string
	// ignore, when not nil, is the zone's i-th ignore rule.
	ignore func(i int) string
	// warnings says, for n, the names whose targets would not resolve,
	// in order; errors counts the errors.
	warnings func(n int) []string
	errors   int
}

const cutZone = "a.example.test."

var cutShapes = []cutShape{{
	// An NS at each cut naming a server below a cut five further on:
	// served for all but the last five, whose cut is not declared.
	name: "ns_targets_five_cuts_on",
	line: func(i int) string {
		return fmt.Sprintf("c%d: NS: [\"ns.c%d.c%d.c%d.c%d.c%d.%s\"]\n", i, i+1, i+2, i+3, i+4, i+5, cutZone)
	},
	warnings: func(n int) []string {
		var out []string
		for i := n - 5; i < n; i++ {
			out = append(out, fmt.Sprintf("c%d.%s", i, cutZone))
		}
		return out
	},
}, {
	name:     "ns_targets_next_cut",
	line:     func(i int) string { return fmt.Sprintf("c%d: NS: [\"ns.c%d.%s\"]\n", i, i+1, cutZone) },
	warnings: func(n int) []string { return []string{fmt.Sprintf("c%d.%s", n-1, cutZone)} },
}, {
	// DNAMEs, a mail host below each next one, and one name below the
	// first DNAME: the one error.
	name: "dname_chain",
	line: func(i int) string {
		return fmt.Sprintf("d%d: DNAME: \"d%d.example.net.\"\nm%d: MX: [{priority: 10, host: \"mail.d%d.%s\"}]\n", i, i, i, i+1, cutZone)
	},
	extra:    "\"x.d0\": TXT: [\"below\"]\n",
	warnings: func(n int) []string { return []string{fmt.Sprintf("m%d.%s", n-1, cutZone)} },
	errors:   1,
}, {
	// Wildcards beside cuts, a mail host under each next wildcard.
	name: "wildcards_beside_cuts",
	line: func(i int) string {
		return fmt.Sprintf("\"*.w%d\": TXT: [\"x\"]\nc%d: NS: [\"ns.example.net.\"]\nm%d: MX: [{priority: 10, host: \"mail.w%d.%s\"}]\n", i, i, i, i+1, cutZone)
	},
	warnings: func(n int) []string { return []string{fmt.Sprintf("m%d.%s", n-1, cutZone)} },
}, {
	// An ignore rule for each mail host but the last: each name was
	// tried against every rule.
	name: "ignore_rules",
	line: func(i int) string {
		return fmt.Sprintf("m%d: MX: [{priority: 10, host: \"h%d.%s\"}]\n", i, i+1, cutZone)
	},
	ignore:   func(i int) string { return fmt.Sprintf("{name: \"h%d\"}", i) },
	warnings: func(n int) []string { return []string{fmt.Sprintf("m%d.%s", n-1, cutZone)} },
}}

// spec is the tenant file of the shape at n names.
func (s cutShape) spec(n int) string {
	var b strings.Builder
	b.WriteString("package tenants\n\ntenants: a: {\n\tdomain: \"a.example.test\"\n\tdns: zones: \"a.example.test\": {provider: \"pdns\", ")
	if s.ignore != nil {
		b.WriteString("ignore: [\n")
		for i := range n {
			b.WriteString(s.ignore(i) + ",\n")
		}
		b.WriteString("], ")
	}
	b.WriteString("records: {\n")
	for i := range n {
		b.WriteString(s.line(i))
	}
	b.WriteString(s.extra)
	b.WriteString("\t}}\n}\n")
	return b.String()
}

// load vets the shape at n names, with the default budgets, and returns
// the names whose targets are warned of and the errors.
func (s cutShape) load(t testing.TB, n int) (warned []string, errs Diagnostics) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"site.cue": hostileSite, "a.cue": s.spec(n)})
	var warnings Diagnostics
	_, err := LoadWith(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "a.cue")},
		Options{Warn: func(d Diagnostics) { warnings = d }})
	if err != nil && !errors.As(err, &errs) {
		t.Fatalf("got %T %v, want Diagnostics", err, err)
	}
	for _, d := range append(warnings, errs...) {
		if !d.Warning {
			continue
		}
		if !strings.Contains(d.Msg, "so it would not resolve") {
			t.Errorf("unexpected warning: %s", d.Format(nil))
		}
		warned = append(warned, strings.Fields(d.Msg)[0])
	}
	errs = slices.DeleteFunc(errs, func(d Diagnostic) bool { return d.Warning })
	return warned, errs
}

// TestCutShapesFinish vets each shape at 30,000 names (a go test
// -timeout bounds it; before the index each took half a minute to a
// minute) and checks what vet says: a check made faster must not say
// less.
func TestCutShapesFinish(t *testing.T) {
	if testing.Short() {
		t.Skip("vets 30,000-name zones")
	}
	const n = 30_000
	for _, s := range cutShapes {
		t.Run(s.name, func(t *testing.T) {
			warned, errs := s.load(t, n)
			slices.Sort(warned)
			want := s.warnings(n)
			slices.Sort(want)
			if !slices.Equal(warned, want) {
				t.Errorf("warned of %v, want %v", warned, want)
			}
			if len(errs) != s.errors {
				t.Errorf("%d errors, want %d:\n%s", len(errs), s.errors, errs.Error())
			}
		})
	}
}

// TestCutShapesSmall is TestCutShapesFinish at sizes the scans handled
// too, so that a difference between the two is the index's.
func TestCutShapesSmall(t *testing.T) {
	for _, s := range cutShapes {
		for _, n := range []int{6, 50} {
			t.Run(fmt.Sprintf("%s/%d", s.name, n), func(t *testing.T) {
				warned, errs := s.load(t, n)
				slices.Sort(warned)
				want := s.warnings(n)
				slices.Sort(want)
				if !slices.Equal(warned, want) {
					t.Errorf("warned of %v, want %v", warned, want)
				}
				if len(errs) != s.errors {
					t.Errorf("%d errors, want %d:\n%s", len(errs), s.errors, errs.Error())
				}
			})
		}
	}
}

// BenchmarkCutShapes vets each shape at growing sizes: near-linear
// checks take about twice as long per doubling, not four times.
func BenchmarkCutShapes(b *testing.B) {
	for _, s := range cutShapes {
		for _, n := range []int{7500, 15000, 30000} {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s.load(b, n)
				}
			})
		}
	}
}

// writeFiles writes files (name -> content) into dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
