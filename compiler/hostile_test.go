package compiler

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The hostile corpus: specs a pull request could carry to break site
// vet in a PR check. testdata/hostile holds the small ones; the large
// and deeply nested ones are written by writeGenerated at test time.
// Each is loaded in a process of its own (a stack overflow is fatal to
// the whole process, and a budget leaves its evaluation running), with
// small budgets. Files named bomb_* must be stopped by a budget (and
// are no fuzz seeds: their evaluation would run on in the fuzzer).
var hostileBudget = Options{EvalTimeout: 5 * time.Second, EvalMemory: 512 << 20}

// hostileFileEnv names the file TestHostileChild loads; unset, it does
// nothing.
const hostileFileEnv = "SITE_HOSTILE_FILE"

// writeGenerated writes the corpus files too large to commit into dir
// and returns their paths.
func writeGenerated(t testing.TB, dir string) []string {
	const head = "package tenants\n\ntenants: a: {\n\tdomain: \"a.example.test\"\n"
	const zone = "\tdns: zones: \"a.example.test\": {provider: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"K\"}, records: {\n"
	rep := func(s string, n int, sep string) string { return strings.TrimSuffix(strings.Repeat(s+sep, n), sep) }
	files := map[string]string{
		"sum_1m_terms":       head + "\t_x: " + rep("1", 1_000_000, " + ") + "\n}\n",
		"sum_over_depth":     head + "\t_x: " + rep("1", maxDepth+10, " + ") + "\n}\n",
		"sum_under_depth":    head + "\t_x: " + rep("1", maxDepth/2, " + ") + "\n}\n",
		"and_chain_1m":       head + "\t_x: " + rep("int", 1_000_000, " & ") + "\n}\n",
		"or_chain_100k":      head + "\t_x: " + rep("1", 100_000, " | ") + "\n}\n",
		"nest_struct_2000":   head + "\t_x: " + rep("{a:", 2000, " ") + " 1" + strings.Repeat("}", 2000) + "\n}\n",
		"nest_list_9999":     head + "\t_x: " + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "\n}\n",
		"nest_list_1m":       head + "\t_x: " + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n}\n",
		"nest_paren_1m":      head + "\t_x: " + strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000) + "\n}\n",
		"nest_unary_1m":      head + "\t_x: " + strings.Repeat("-", 1_000_000) + "1\n}\n",
		"nest_interp_5000":   head + "\t_x: " + strings.Repeat(`"\(`, 5000) + "1" + strings.Repeat(`)"`, 5000) + "\n}\n",
		"selector_chain_1m":  head + "\t_x: _y" + strings.Repeat(".a", 1_000_000) + "\n}\n",
		"index_chain_1m":     head + "\t_x: _y" + strings.Repeat("[0]", 1_000_000) + "\n}\n",
		"label_chain_100k":   head + "\t_x: " + rep("a", 100_000, ": ") + ": 1\n}\n",
		"call_chain_1m":      head + "\t_x: " + strings.Repeat("len(", 100_000) + "1" + strings.Repeat(")", 100_000) + "\n}\n",
		"txt_100k":           head + zone + "\t\twww: TXT: [\"" + strings.Repeat("x", 100_000) + "\"]\n\t}}\n}\n",
		"txt_10m":            head + zone + "\t\twww: TXT: [\"" + strings.Repeat("x", 10_000_000) + "\"]\n\t}}\n}\n",
		"txt_many_64k":       head + zone + "\t\twww: TXT: [" + rep("\""+strings.Repeat("y", 250)+"\"", 300, ", ") + "]\n\t}}\n}\n",
		"label_1m":           head + zone + "\t\t\"" + strings.Repeat("x", 1_000_000) + "\": A: [\"192.0.2.1\"]\n\t}}\n}\n",
		"key_1m":             head + "\t_" + strings.Repeat("k", 1_000_000) + ": 1\n}\n",
		"fields_100k_hidden": head + "\t_x: {\n" + generate(100_000, func(i int) string { return fmt.Sprintf("\t\tf%[1]d: %[1]d\n", i) }) + "\t}\n}\n",
		"tenants_3000":       "package tenants\n\n" + generate(3000, func(i int) string { return fmt.Sprintf("tenants: t%[1]d: domain: \"t%[1]d.example.test\"\n", i) }),
		"records_20k":        head + zone + generate(20_000, func(i int) string { return fmt.Sprintf("\t\th%d: A: [\"192.0.2.1\"]\n", i) }) + "\t}}\n}\n",
		"records_a_100k":     head + zone + "\t\twww: A: [" + rep("\"192.0.2.1\"", 100_000, ", ") + "]\n\t}}\n}\n",
		"ref_chain_200k":     head + "\t_a0: 1\n" + generate(200_000, func(i int) string { return fmt.Sprintf("\t_a%[1]d: _a%[2]d + 1\n", i, i-1) }) + "}\n",
		"zones_10k": head + "\tdns: zones: {\n" + generate(10_000, func(i int) string {
			return fmt.Sprintf("\t\t\"z%d.a.example.test\": provider: powerdns: {url: \"http://x\", api_key: env: \"K\"}\n", i)
		}) + "\t}\n}\n",
		"long_line_comment":  "// " + strings.Repeat("c", 20_000_000) + "\n" + head + "}\n",
		"many_comments":      strings.Repeat("// c\n", 1_000_000) + head + "}\n",
		"nul_bytes_1m":       head + "\t_x: \"" + strings.Repeat("\x00", 1_000_000) + "\"\n}\n",
		"invalid_utf8_1m":    head + "\t_x: \"" + strings.Repeat("\xff", 1_000_000) + "\"\n}\n",
		"doubling_hidden_60": string(doublingSpec(60)),
		"doubling_hidden_30": string(doublingSpec(30)),
		// Issue 27, finding 5: quadratic in cuts before the checks
		// used an index (63 s).
		"cuts_ns_literal_90k": head + zone + generate(90_000, func(i int) string {
			return fmt.Sprintf("\t\tc%d: NS: [\"ns.c%d.a.example.test.\"]\n", i, i+1)
		}) + "\t}}\n}\n",
		"comprehension_10e10": head + "\t_l: [0,1,2,3,4,5,6,7,8,9]\n\t_x: [" + strings.Repeat("for a in _l ", 10) + "{a}]\n}\n",
	}
	var paths []string
	for name, src := range files {
		p := filepath.Join(dir, name+".cue")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// Past maxFileSize, written sparse: refused before it is read.
	big := filepath.Join(dir, "file_65mib.cue")
	if err := os.WriteFile(big, []byte(head+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxFileSize+1<<20); err != nil {
		t.Fatal(err)
	}
	return append(paths, big)
}

// generate joins line(i) for i from 1 to n.
func generate(n int, line func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(line(i))
	}
	return b.String()
}

// A diagnostic line as TestHostileChild prints it.
var diagLine = regexp.MustCompile(`^DIAG (.+?):([1-9][0-9]*):([1-9][0-9]*): .`)

// TestHostileCorpus loads every hostile spec: each must end in success
// or positioned diagnostics, never a panic, a stack trace or a hang.
func TestHostileCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every hostile spec in a process of its own")
	}
	files, err := filepath.Glob("testdata/hostile/*.cue")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, writeGenerated(t, t.TempDir())...)
	if len(files) < 100 {
		t.Fatalf("corpus has %d files, want at least 100", len(files))
	}
	const pwned = "/tmp/site-hostile-pwned" // cue_import_tool_exec.cue asks for it
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".cue"), func(t *testing.T) {
			t.Parallel()
			// Not an assertion on speed: a child that outlives its
			// budget this long has hung.
			ctx, cancel := context.WithTimeout(context.Background(), hostileBudget.EvalTimeout+60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), hostileFileEnv+"="+file)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("did not stop within its budget (%s)", hostileBudget.EvalTimeout)
			}
			if err != nil || bytes.Contains(out, []byte("goroutine ")) || bytes.Contains(out, []byte("panic")) {
				t.Fatalf("loading crashed (%v):\n%.3000s", err, out)
			}
			diags, ok := 0, false
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "VALID":
					ok = true
				case strings.HasPrefix(line, "DIAG "):
					m := diagLine.FindStringSubmatch(line)
					if m == nil || filepath.Base(m[1]) != filepath.Base(file) {
						t.Errorf("diagnostic without file:line:col in %s: %.300s", file, line)
					}
					diags++
				}
			}
			if !ok && diags == 0 {
				t.Fatalf("neither valid nor diagnosed:\n%.3000s", out)
			}
			if strings.HasPrefix(filepath.Base(file), "bomb_") && !bytes.Contains(out, []byte("evaluation passed its")) {
				t.Errorf("a bomb that no budget stopped:\n%.3000s", out)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("%s exists: a spec ran a command", pwned)
			}
		})
	}
}

// hostileSite is the operator's file the corpus is loaded with: it
// grants the tenants the corpus files name, so that they reach every
// check after the grant.
const hostileSite = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
hosts: kvm1: uri: "qemu:///system"
tenants: {
	a: {domains: ["a.example.test"], providers: ["pdns"], hosts: ["kvm1"]}
	b: {domains: ["b.example.test"], providers: ["pdns"], hosts: ["kvm1"]}
}
`

// TestHostileChild is TestHostileCorpus's child process: it loads the
// file named by SITE_HOSTILE_FILE and prints VALID or one DIAG line per
// diagnostic.
func TestHostileChild(t *testing.T) {
	file := os.Getenv(hostileFileEnv)
	if file == "" {
		t.Skip("run by TestHostileCorpus")
	}
	// The file is loaded alone, beside an operator's file that grants
	// the tenants the corpus names: beside the rest of the corpus, every
	// sibling would be loaded with it.
	dir := t.TempDir()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, filepath.Base(file))
	if err := os.WriteFile(copied, src, 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, ConfigName)
	if err := os.WriteFile(config, []byte(hostileSite), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadWith(config, []string{copied}, hostileBudget)
	printPeak()
	if err == nil {
		fmt.Println("VALID")
		return
	}
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("got %T %v, want Diagnostics", err, err)
	}
	for _, d := range diags {
		fmt.Println("DIAG " + strings.ReplaceAll(d.Format(nil), "\n", `\n`))
	}
	// The budget may have left an evaluation running: end the process
	// now rather than let the test framework wait on nothing.
	os.Stdout.Sync()
}

// printPeak prints "PEAK N", this process's peak resident memory in
// bytes since it began: VmHWM, which is of this process's own memory.
// (Rusage's Maxrss of a child is not: Linux carries the hiwater of the
// parent's memory, which a vfork'd child shares until exec, into the
// child, so a test process grown large reports its own peak as the
// child's.)
func printPeak() {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var n uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(kb), "%d kB", &n); err == nil {
				fmt.Printf("PEAK %d\n", n<<10)
			}
		}
	}
}
