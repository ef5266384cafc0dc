package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/manual"
)

// TestHelpTopics renders every topic, as text and as Markdown, and holds
// the manual to the code: no topic file was left out, and there are
// enough of them for a newcomer to find their way.
func TestHelpTopics(t *testing.T) {
	for _, err := range manual.Problems() {
		t.Error(err)
	}
	topics := manual.Topics()
	if len(topics) < 6 {
		t.Fatalf("site help lists %d topics, want at least 6", len(topics))
	}
	for _, tp := range topics {
		for _, format := range []string{"text", "markdown"} {
			var out bytes.Buffer
			if code := run([]string{"help", "--format", format, tp.Name}, &out, io.Discard); code != 0 || out.Len() == 0 {
				t.Errorf("site help --format %s %s: exit %d, %d bytes", format, tp.Name, code, out.Len())
			}
		}
		if strings.Contains(tp.Body, "](#") {
			t.Errorf("%s: a link to a README anchor; name a topic instead (`site help TOPIC`)", tp.Source)
		}
	}
}

// siteLine is a site command line in a code block: "site ...", or the
// binary as a path ("./site", "bin/site"), after an optional prompt.
var siteLine = regexp.MustCompile(`^\s*(?:\$ |- run: )?(?:\./|bin/)?site( .*)?$`)

// topicCommands returns the site command lines of md's code blocks,
// each with its line number, joined over trailing backslashes and cut
// at a comment, a pipe, a redirection or a shell operator.
func topicCommands(md string) (lines []int, cmds [][]string) {
	inCode := false
	src := strings.Split(md, "\n")
	for i := 0; i < len(src); i++ {
		line := src[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if !inCode || !siteLine.MatchString(line) {
			continue
		}
		n := i + 1
		for strings.HasSuffix(line, "\\") && i+1 < len(src) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + src[i]
		}
		words := shellWords(siteLine.FindStringSubmatch(line)[1])
		lines, cmds = append(lines, n), append(cmds, words)
	}
	return lines, cmds
}

// shellWords splits a command line as a shell would for these examples:
// quotes group, and a comment, pipe, redirection or operator ends it.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case !inWord && strings.ContainsRune("#|><&;", r):
			return words
		case strings.ContainsRune("|><;", r):
			return append(words, cur.String())
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestHelpTopicCommandLinesParse finds each site command line in the
// topics' code blocks and parses it with today's command tree and
// flags, without running it, so that a renamed flag or command fails
// here rather than in a reader's shell.
func TestHelpTopicCommandLinesParse(t *testing.T) {
	total := 0
	for _, tp := range manual.Topics() {
		lines, cmds := topicCommands(tp.Body)
		for i, args := range cmds {
			total++
			if err := parseCommandLine(args); err != nil {
				t.Errorf("%s:%d: site %s: %v", tp.Source, lines[i], strings.Join(args, " "), err)
			}
		}
	}
	if total == 0 {
		t.Fatal("no site command line found in any topic's code blocks")
	}
}

// parseCommandLine finds the command args name and parses its flags, as
// Execute would before running it.
func parseCommandLine(args []string) error {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	if c.Args != nil {
		return c.ValidateArgs(c.Flags().Args())
	}
	return nil
}

func TestParseCommandLine(t *testing.T) {
	cases := []struct {
		line string
		ok   bool
	}{
		{"diff --only dns tenants/sjc.cue", true},
		{"diff --out plan.json --detailed-exitcode", true},
		{"diff --max-steps N", false},
		{"diff -out plan.json", false},
		{"plan tenants/sjc.cue", false},
		{"apply --auto-approve", false},
		{`export powerdns --zone example.org --tenant office1 # a comment`, true},
		{"help records", true},
	}
	for _, c := range cases {
		err := parseCommandLine(shellWords(c.line))
		if (err == nil) != c.ok {
			t.Errorf("site %s: err = %v, want ok=%v", c.line, err, c.ok)
		}
	}
}

// inlineSite is a site command in a code span of a topic's prose.
var inlineSite = regexp.MustCompile("`site ([a-z][^`]*)`")

// notCommands are code spans that begin with "site " but quote text
// site writes, not a command line.
var notCommands = map[string]bool{"site upload": true}

// TestHelpTopicInlineCommandsExist: a site command quoted in a topic's
// prose is often a synopsis (site init NAME --domain D [--out FILE]),
// so only its command and flag names are held to today's command tree:
// a renamed command or flag fails here.
func TestHelpTopicInlineCommandsExist(t *testing.T) {
	n := 0
	for _, tp := range manual.Topics() {
		prose := regexp.MustCompile("\n\\s*").ReplaceAllString(tp.Body, " ")
		for _, m := range inlineSite.FindAllStringSubmatch(prose, -1) {
			if notCommands["site "+m[1]] {
				continue
			}
			n++
			if err := commandAndFlagsExist(strings.Fields(m[1])); err != nil {
				t.Errorf("%s: `site %s`: %v", tp.Source, m[1], err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no site command found in the topics' prose")
	}
}

// commandAndFlagsExist finds the command words names and checks that
// each --flag among words is one of its flags.
func commandAndFlagsExist(words []string) error {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	c := root
	for _, w := range words {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "[(|.") || strings.ToUpper(w) == w {
			break
		}
		next, _, err := c.Find([]string{w})
		if err != nil || next == c {
			if c == root {
				return fmt.Errorf("no command %q", w)
			}
			break
		}
		c = next
	}
	c.InitDefaultHelpFlag()
	for _, w := range words {
		w = strings.Trim(w, "[]()|,;:")
		name, ok := strings.CutPrefix(w, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil {
			return fmt.Errorf("%s has no flag --%s", c.CommandPath(), name)
		}
	}
	return nil
}

// envName is a word that reads as an environment variable's name.
var envName = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// notSites are names the topics use that are not variables site reads:
// the Go toolchain's, the CI's and git's.
var notSites = map[string]bool{"CGO_ENABLED": true, "GH_TOKEN": true, "GITHUB_OUTPUT": true, "GITHUB_TOKEN": true, "GITHUB_STEP_SUMMARY": true, "FETCH_HEAD": true}

// credentialRef is a credential reference in site.cue, {env: "NAME"}: a
// name the operator chooses, which site reads because site.cue says so.
var credentialRef = regexp.MustCompile(`env: "([A-Z0-9_]+)"`)

// TestHelpTopicVariablesExist: every environment variable a topic names
// is one the code reads (compiler/manual's list), one site.cue names in
// the same topic ({env: "NAME"}), or one of notSites.
func TestHelpTopicVariablesExist(t *testing.T) {
	for _, tp := range manual.Topics() {
		chosen := map[string]bool{}
		for _, m := range credentialRef.FindAllStringSubmatch(tp.Body, -1) {
			chosen[m[1]] = true
		}
		for i, line := range strings.Split(tp.Body, "\n") {
			for _, name := range envName.FindAllString(line, -1) {
				if _, ok := manual.LookupVariable(name); !ok && !notSites[name] && !chosen[name] {
					t.Errorf("%s:%d: %s is no variable site reads (compiler/manual.Variables)", tp.Source, i+1, name)
				}
			}
		}
	}
}

// helpRef is a pointer to a topic: `site help NAME` in a topic or the
// README, "See site help A, B, C." in a command's --help.
var (
	helpRef     = regexp.MustCompile("`site help ([a-z-]+)`")
	helpSeeList = regexp.MustCompile(`[Ss]ee site help ([a-z-]+(?:,\s+[a-z-]+)*)`)
)

// topicExists reports whether name is a topic, or one a colleague's
// branch adds (pendingTopics).
func topicExists(name string) bool {
	_, ok := manual.Lookup(name)
	return ok || pendingTopics[name]
}

// TestHelpReferencesResolve: every topic a topic, the README or a
// command's --help points to exists.
func TestHelpReferencesResolve(t *testing.T) {
	for _, tp := range manual.Topics() {
		for _, m := range helpRef.FindAllStringSubmatch(tp.Body, -1) {
			if !topicExists(m[1]) {
				t.Errorf("%s points to site help %s, which is no topic", tp.Source, m[1])
			}
		}
	}
	for _, m := range helpRef.FindAllStringSubmatch(readme(t), -1) {
		if !topicExists(m[1]) {
			t.Errorf("README.md points to site help %s, which is no topic", m[1])
		}
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for _, m := range helpSeeList.FindAllStringSubmatch(c.Long, -1) {
			for _, name := range regexp.MustCompile(`,\s+`).Split(m[1], -1) {
				if !topicExists(name) {
					t.Errorf("%s --help points to site help %s, which is no topic", c.CommandPath(), name)
				}
			}
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(newRootCmd(io.Discard, io.Discard))
}

// readme reads the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeTopic is an entry of the README's index of help topics:
// "- [`site help NAME`](path/help/NAME.md)".
var readmeTopic = regexp.MustCompile("(?m)^- \\[`site help ([a-z-]+)`\\]\\(([^)]+)\\)")

// pendingTopics are topics the README indexes that colleagues' branches
// add; until one lands, its absence is logged, not failed.
var pendingTopics = map[string]bool{}

// TestREADMEIsADoor: README.md stays short, its site command lines
// parse with today's flags, and every topic its index names exists, in
// the file the index links.
func TestREADMEIsADoor(t *testing.T) {
	text := readme(t)
	if n := strings.Count(text, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, want at most 300: move reference text into a help topic", n)
	}
	lines, cmds := topicCommands(text)
	for i, args := range cmds {
		if err := parseCommandLine(args); err != nil {
			t.Errorf("README.md:%d: site %s: %v", lines[i], strings.Join(args, " "), err)
		}
	}
	for _, m := range inlineSite.FindAllStringSubmatch(regexp.MustCompile("\n\\s*").ReplaceAllString(text, " "), -1) {
		if err := commandAndFlagsExist(strings.Fields(m[1])); err != nil {
			t.Errorf("README.md: `site %s`: %v", m[1], err)
		}
	}
	index := readmeTopic.FindAllStringSubmatch(text, -1)
	if len(index) < 6 {
		t.Fatalf("README.md indexes %d help topics, want at least 6", len(index))
	}
	for _, m := range index {
		name, file := m[1], m[2]
		tp, ok := manual.Lookup(name)
		if !ok && pendingTopics[name] {
			t.Logf("README indexes %s (%s), which another branch adds", name, file)
			continue
		}
		if !ok {
			t.Errorf("README indexes site help %s, which is no topic", name)
			continue
		}
		if tp.Source != file && name != manual.EnvironmentTopic {
			t.Errorf("README links site help %s to %s, but the topic is %s", name, file, tp.Source)
		}
		if _, err := os.Stat(repoFile(filepath.FromSlash(file))); err != nil {
			t.Errorf("README links site help %s to %s: %v", name, file, err)
		}
	}
}

func TestTopicCommands(t *testing.T) {
	md := "# T\n\n`site nope --x` in prose is not read\n\n```sh\n$ site diff --only dns \\\n  tenants/a.cue   # why\nsite vet | jq .\n./site apply --yes > out\nsiteless\n```\n"
	lines, cmds := topicCommands(md)
	got := ""
	for i, c := range cmds {
		got += strings.Join(c, ",") + "@" + string(rune('0'+lines[i])) + ";"
	}
	if want := "diff,--only,dns,tenants/a.cue@6;vet@8;apply,--yes@9;"; got != want {
		t.Errorf("topicCommands = %s, want %s", got, want)
	}
}

// TestCommandHelpIsShort: every command's --help fits a screen (at most
// 45 lines of at most 100 characters), the long text being in a topic
// it points to, and its examples parse with today's flags.
func TestCommandHelpIsShort(t *testing.T) {
	var visit func(path []string)
	visit = func(path []string) {
		root := newRootCmd(io.Discard, io.Discard)
		root.InitDefaultHelpCmd()
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if code := run(append(append([]string{}, path...), "--help"), &out, io.Discard); code != 0 {
			t.Fatalf("site %s --help: exit %d", strings.Join(path, " "), code)
		}
		name := strings.TrimSpace("site " + strings.Join(path, " "))
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(lines) > 45 {
			t.Errorf("%s --help is %d lines, want at most 45: move the long text into a help topic", name, len(lines))
		}
		for i, l := range lines {
			if n := len([]rune(l)); n > 100 {
				t.Errorf("%s --help line %d is %d characters, want at most 100: %s", name, i+1, n, l)
			}
		}
		_, examples := topicCommands("```\n" + c.Example + "\n```\n")
		if len(examples) == 0 && c.Runnable() && !strings.HasPrefix(name, "site completion") {
			t.Errorf("%s --help has no example", name)
		}
		for _, args := range examples {
			if err := parseCommandLine(args); err != nil {
				t.Errorf("%s --help example site %s: %v", name, strings.Join(args, " "), err)
			}
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "help" && !sub.Hidden {
				visit(append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	visit(nil)
}

// pendingPackages are packages a branch adds whose line in the README's
// code map the lead writes when merging; until then their absence is
// logged, not failed. Remove an entry once README.md names it.
var pendingPackages = map[string]bool{}

// TestREADMECodeMap: the code map names every package of the module,
// and every package it names exists, so it matches the tree.
func TestREADMECodeMap(t *testing.T) {
	text := readme(t)
	_, codeMap, ok := strings.Cut(text, "## How the code is laid out")
	if !ok {
		t.Fatal(`README.md has no "## How the code is laid out"`)
	}
	codeMap, _, _ = strings.Cut(codeMap, "\n## ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:cmd|compiler|backends|schema)(?:/[a-z0-9]+)*)`").FindAllStringSubmatch(codeMap, -1) {
		named[m[1]] = true
		if _, err := os.Stat(repoFile(m[1])); err != nil {
			t.Errorf("the code map names %s, which is not in the tree", m[1])
		}
	}
	top := repoFile("")
	err := filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "help" || d.Name() == "vaultserver" {
			return filepath.SkipDir
		}
		if goFiles, _ := filepath.Glob(filepath.Join(p, "*.go")); len(goFiles) > 0 && !named[rel] {
			if pendingPackages[rel] {
				t.Logf("the code map does not name %s yet (README.md is the lead's to change)", rel)
				return nil
			}
			t.Errorf("the code map in README.md does not name package %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestREADMEExamplesVet writes the README's two example files, site.cue
// and tenants/acme.cue, into a directory and vets them as a reader would.
func TestREADMEExamplesVet(t *testing.T) {
	blocks := regexp.MustCompile("(?s)```cue\n(.*?)```").FindAllStringSubmatch(readme(t), -1)
	dir := t.TempDir()
	var wrote []string
	for _, b := range blocks {
		name := map[bool]string{true: "site.cue", false: "tenants/acme.cue"}[strings.HasPrefix(b[1], "package site\n")]
		if err := os.MkdirAll(filepath.Join(dir, "tenants"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, name)
	}
	if strings.Join(wrote, " ") != "site.cue tenants/acme.cue" {
		t.Fatalf("README.md's cue blocks are %v, want site.cue then tenants/acme.cue", wrote)
	}
	var out, errOut bytes.Buffer
	t.Chdir(dir)
	if code := run([]string{"vet", "--no-cache", "./tenants/..."}, &out, &errOut); code != 0 {
		t.Errorf("site vet of README.md's examples: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
