package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// TestBudgets sets budgets the heap and the clock have passed before
// Load starts, so the message is checked, not the time it takes.
func TestBudgets(t *testing.T) {
	// sjc.cue alone beside the operator's file: beside its neighbours,
	// whichever file evaluates first would carry the diagnostic.
	dir := t.TempDir()
	for name, from := range map[string]string{ConfigName: "../" + ConfigName, "sjc.cue": "../tenants/sjc.cue"} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "sjc.cue")
	for _, tc := range []struct {
		name string
		o    Options
		want string // "" for a valid load
	}{
		{"defaults", Options{}, ""},
		{"time", Options{EvalTimeout: time.Nanosecond}, "evaluation passed its time budget of 1ns while evaluating this file; " +
			"make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, raise it with --eval-timeout"},
		{"memory", Options{EvalMemory: 1 << 10}, "evaluation passed its memory budget of 1KiB of heap while evaluating this file; " +
			"make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, raise it with --eval-memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadWith(filepath.Join(dir, ConfigName), []string{file}, tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			var diags Diagnostics
			if !errors.As(err, &diags) || len(diags) != 1 {
				t.Fatalf("got %v, want one diagnostic", err)
			}
			if got, want := diags[0].Format(nil), file+":1:1: "+tc.want; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{1 << 30, "1GiB"}, {512 << 20, "512MiB"}, {1536 << 20, "1536MiB"}, {3 << 40, "3TiB"}, {1000, "1000 bytes"},
	} {
		if got := FormatSize(tc.n); got != tc.want {
			t.Errorf("FormatSize(%d): got %q, want %q", tc.n, got, tc.want)
		}
		if strings.HasSuffix(tc.want, "B") && !strings.HasSuffix(tc.want, "bytes") {
			if back, err := ParseSize(tc.want); err != nil || back != tc.n {
				t.Errorf("ParseSize(%q): got %d, %v, want %d", tc.want, back, err, tc.n)
			}
		}
	}
}

// TestBudgets_SharedValues: CUE shares a value every reference makes,
// so a string of 4 MiB given to 1,000 VMs evaluates in a second and a
// few MB, within every budget; but the cache wrote each copy (4 GiB on
// disk, 10 GB of memory, 100 s), and diff built each VM's seed from
// it (7 GB). What a file evaluates to is held to a sixteenth of the
// memory budget in strings, counted as often as they are used.
func TestBudgets_SharedValues(t *testing.T) {
	dir := t.TempDir()
	site := "package site\n\nhosts: kvm1: uri: \"test:///default\"\ntenants: evil: {domains: [\"evil.test\"], hosts: [\"kvm1\"]}\n"
	spec := "package tenants\n\n_u: \"" + strings.Repeat("x", 1<<20) + "\"\n_l: [0, 1, 2, 3, 4, 5, 6, 7]\n" +
		"tenants: evil: {\n\tdomain: \"evil.test\"\n" +
		"\tvms: {for a in _l for b in _l {\"v\\(a)\\(b)\": {host: \"kvm1\", autostart: true, cloudinit: user_data: _u}}}\n}\n"
	for name, src := range map[string]string{ConfigName: site, "evil.cue": spec} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	o := Options{EvalMemory: 512 << 20, Cache: OpenCache(cache)} // 32 MiB of strings; the spec holds 64
	_, err := LoadWith(filepath.Join(dir, ConfigName), []string{dir}, o)
	var diags Diagnostics
	const want = "evaluates to more than 32MiB of strings (a value counts once per use), the most a memory budget of 512MiB allows"
	if !errors.As(err, &diags) || len(diags) != 1 || !strings.Contains(diags[0].Msg, want) || diags[0].Pos.Line != 1 {
		t.Errorf("Load: got %v, want one error at evil.cue:1:1 containing %q", err, want)
	}
	var cached int64
	_ = filepath.Walk(cache, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			cached += fi.Size()
		}
		return nil
	})
	if cached > 1<<20 {
		t.Errorf("the cache holds %s, want the refused file not cached", FormatSize(uint64(cached)))
	}
	o.EvalMemory = 2 << 30 // 128 MiB of strings: the same spec loads
	if _, err := LoadWith(filepath.Join(dir, ConfigName), []string{dir}, o); err != nil {
		t.Errorf("Load with --eval-memory 2GiB: %v", err)
	}
	// Now cached, under the larger budget: the smaller one still refuses
	// it, from the count the entry keeps.
	o.EvalMemory = 512 << 20
	if _, err := LoadWith(filepath.Join(dir, ConfigName), []string{dir}, o); !errors.As(err, &diags) || len(diags) != 1 || !strings.Contains(diags[0].Msg, want) {
		t.Errorf("Load of the cached file with --eval-memory 512MiB: got %v, want one error containing %q", err, want)
	}
}

// TestBudgets_SharedValuesAcrossFiles: the strings budget held each
// file on its own, so a pull request that spread TestBudgets_SharedValues'
// spec over many files, each just within it, had the cache write and
// the load handle all of them: ten files of 56 MiB each took vet 2 GB
// of memory and 560 MB of cache, and nothing bounded the number of
// files. The budget is for every file of one load together: the file
// that passes it is refused, and not cached.
func TestBudgets_SharedValuesAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	site := "package site\n\nhosts: kvm1: uri: \"test:///default\"\ntenants: {\n"
	files := map[string]string{}
	for _, name := range []string{"evil1", "evil2", "evil3"} {
		site += "\t" + name + ": {domains: [\"" + name + ".test\"], hosts: [\"kvm1\"]}\n"
		// 12 MiB of strings each, counted per use: within the 32 MiB
		// of a 512 MiB budget, and three of them past it.
		files[name+".cue"] = "package tenants\n\n_u: \"#!" + strings.Repeat("x", 1<<20-2) + "\"\n" +
			"tenants: " + name + ": {\n\tdomain: \"" + name + ".test\"\n" +
			"\tvms: {for i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {\"" + name + "-\\(i)\": {host: \"kvm1\", autostart: true, cloudinit: user_data: _u}}}\n}\n"
	}
	files[ConfigName] = site + "}\n"
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	o := Options{EvalMemory: 512 << 20, Cache: OpenCache(cache)}
	for _, run := range []string{"evaluated", "cached"} {
		_, err := LoadWith(filepath.Join(dir, ConfigName), []string{dir}, o)
		var diags Diagnostics
		const want = "this file and the files loaded before it evaluate to more than 32MiB of strings (a value counts once per use), the most a memory budget of 512MiB allows one load"
		if !errors.As(err, &diags) || len(diags) != 1 || !strings.Contains(diags[0].Msg, want) ||
			filepath.Base(diags[0].Pos.File) != "evil3.cue" || diags[0].Pos.Line != 1 {
			t.Fatalf("%s: got %v, want one error at evil3.cue:1:1 containing %q", run, err, want)
		}
	}
	var cached int64
	_ = filepath.Walk(cache, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			cached += fi.Size()
		}
		return nil
	})
	if cached > 30<<20 {
		t.Errorf("the cache holds %s, want evil1 and evil2 alone (24 MiB of strings), not the file refused", FormatSize(uint64(cached)))
	}
	o.EvalMemory = 1 << 30 // 64 MiB of strings: the three load
	if _, err := LoadWith(filepath.Join(dir, ConfigName), []string{dir}, o); err != nil {
		t.Errorf("Load with --eval-memory 1GiB: %v", err)
	}
}

// TestBudgetCoversChecks: the checks after evaluation run within the
// time budget too (issue 27, finding 5: 30,000 cuts vetted for 39 s,
// exit 0, with no budget message). The spec is evaluated first with
// the default budgets; its checks then get a budget of 1ms, which they
// take far longer than, and end in the budget's message at the file
// being checked rather than in their findings.
func TestBudgetCoversChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a 30,000-name zone")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a.cue")
	writeFiles(t, dir, map[string]string{"a.cue": cutShapes[0].spec(30_000)})
	op, diags := operatorSource("site.cue", []byte(hostileSite))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	evalw := watch(Options{}, file)
	results, err := evaluate([]input{{path: file}}, evalw, Options{}, nil)
	evalw.stop()
	if err != nil {
		t.Fatal(err)
	}
	w := watch(Options{EvalTimeout: time.Millisecond}, file)
	defer w.stop()
	w.enter(phaseCheck)
	_, err = w.bound(func() (*model.Spec, error) {
		return assemble(op, results, map[string]bool{file: true}, nil, nil, w)
	})
	var got Diagnostics
	if !errors.As(err, &got) || len(got) != 1 {
		t.Fatalf("got %v, want one diagnostic", err)
	}
	const want = "checking the specs after evaluation passed its time budget of 1ms while checking this file (names, zone cuts, delegations and tenants against each other); make the spec simpler (fewer names?) or, if it is legitimately this large, raise it with --eval-timeout"
	if d := got[0]; d.Pos.File != file || d.Pos.Line < 1 || d.Pos.Col < 1 || d.Msg != want {
		t.Errorf("got %s, want %s:LINE:COL: %s", d.Format(nil), file, want)
	}
}
