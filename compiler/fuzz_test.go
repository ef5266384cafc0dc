package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzLoadSource feeds arbitrary bytes to the loader: malformed input
// must give Diagnostics, never a panic or another kind of error. The
// seed corpus is every fixture in testdata, the example tenants and the
// hostile corpus but its bombs (testdata/hostile/bomb_*.cue), which
// would run on past their budget in this process. Inputs are loaded
// with small budgets, so that one the fuzzer makes into a bomb ends
// in a diagnostic too.
func FuzzLoadSource(f *testing.F) {
	archives, _ := filepath.Glob("testdata/*/*.txtar")
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			f.Add(file.Data)
		}
	}
	examples, _ := filepath.Glob("../tenants/*.cue")
	hostile, _ := filepath.Glob("testdata/hostile/*.cue")
	for _, p := range hostile {
		if !strings.HasPrefix(filepath.Base(p), "bomb_") {
			examples = append(examples, p)
		}
	}
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		spec, err := loadSource("fuzz.cue", src, Options{EvalTimeout: 2 * time.Second, EvalMemory: 256 << 20})
		if err == nil {
			if spec == nil {
				t.Fatal("no spec and no error")
			}
			return
		}
		var diags Diagnostics
		if !errors.As(err, &diags) || len(diags) == 0 {
			t.Fatalf("got %T %v, want Diagnostics", err, err)
		}
		for _, d := range diags {
			if d.Pos.File != "fuzz.cue" || d.Msg == "" {
				t.Fatalf("diagnostic without position or message: %+v", d)
			}
		}
	})
}
