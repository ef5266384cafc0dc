package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler"
)

// workflowYAML returns the example GitHub Actions workflow named name
// (site-vet.yml, site-diff.yml) in site help ci (cmd/site/help/ci.md).
func workflowYAML(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile(repoFile("cmd/site/help/ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\n# .github/workflows/"+name+"\n")
	yaml, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatalf("cmd/site/help/ci.md (site help ci) has no ```yaml block starting with # .github/workflows/%s", name)
	}
	return yaml
}

// siteCommand is a site command line of a workflow, without "./site"
// and any redirection.
var siteCommand = regexp.MustCompile(`(?m)^\s*(?:- run: )?\./site (.*)$`)

// workflowCommands returns the site command lines of a workflow.
func workflowCommands(yaml string) [][]string {
	var out [][]string
	for _, m := range siteCommand.FindAllStringSubmatch(yaml, -1) {
		line, _, _ := strings.Cut(m[1], " >")
		out = append(out, strings.Fields(line))
	}
	return out
}

// TestREADMEWorkflow runs the pull-request workflows of site help ci against
// the example tenants in a copy of the repository's layout (site.cue at
// the top, tenants/ below), so they stay true: vet exactly as written;
// diff as written, against a PowerDNS of the test's own (named in the
// copy's site.cue) and scoped to office1's zone, the one part of
// tenants/ a test can observe here. The diff's workflow is held to what
// keeps the operator's credentials from the pull request's code: the
// base branch's workflow (pull_request_target) and checkout, site built
// before anything of the pull request is fetched, and of it only
// tenants/ taken; the vet workflow, which runs the pull request's code,
// gets no secret. What the diff prints is no workflow command.
func TestREADMEWorkflow(t *testing.T) {
	vetYAML, diffYAML := workflowYAML(t, "site-vet.yml"), workflowYAML(t, "site-diff.yml")
	if !regexp.MustCompile(`(?m)^on: pull_request$`).MatchString(vetYAML) || strings.Contains(vetYAML, "secrets.") {
		t.Errorf("the vet workflow must run on pull_request without secrets:\n%s", vetYAML)
	}
	if !regexp.MustCompile(`(?m)^on: pull_request_target$`).MatchString(diffYAML) {
		t.Errorf("the diff workflow must run the base branch's workflow (on: pull_request_target):\n%s", diffYAML)
	}
	if strings.Contains(diffYAML, "ref:") || strings.Contains(diffYAML, "head.sha") || strings.Contains(diffYAML, "head.ref") {
		t.Errorf("the diff workflow must check out the base branch only, not the pull request's code:\n%s", diffYAML)
	}
	build := strings.Index(diffYAML, "go build")
	fetch := strings.Index(diffYAML, "git fetch")
	take := regexp.MustCompile(`git checkout FETCH_HEAD -- (\S+)\n`).FindAllStringSubmatch(diffYAML, -1)
	if build < 0 || fetch < build || len(take) != 1 || take[0][1] != "tenants" || !strings.Contains(diffYAML, "rm -rf tenants && git checkout") {
		t.Errorf("the diff workflow must build site first, then take only tenants/ of the pull request (emptied first):\n%s", diffYAML)
	}
	// What site prints on stderr quotes the pull request's files, and
	// the runner takes a line of a step's output that reads as a
	// workflow command for one (::add-mask::, ::error::, and ##[...]
	// anywhere in a line): the diff runs between ::stop-commands:: and
	// its resume, under a token the pull request cannot guess, and no
	// run: script is built from an expression a step's output sets.
	stop := regexp.MustCompile(`(?s)token="\$\(openssl rand -hex 16\)"\n\s*echo "::stop-commands::\$token"\n[^\n]*\./site diff [^\n]*\n(.*?)echo "::\$token::"`).FindStringSubmatch(diffYAML)
	if stop == nil || strings.Contains(stop[1], "./site") || strings.Count(diffYAML, "./site diff") != 1 {
		t.Errorf("the diff workflow must run site diff between echo \"::stop-commands::$token\" and echo \"::$token::\", with a random token:\n%s", diffYAML)
	}
	// A pull request can edit every tenant's file: the run is bounded
	// as a whole, not only each tenant by its limits.
	if !regexp.MustCompile(`\./site diff [^\n]*--max-steps [1-9]`).MatchString(diffYAML) {
		t.Errorf("the diff workflow must bound the run with --max-steps:\n%s", diffYAML)
	}
	if regexp.MustCompile(`run: [^\n]*\$\{\{`).MatchString(diffYAML) {
		t.Errorf("the diff workflow interpolates an expression into a run: script; pass it through env:\n%s", diffYAML)
	}
	site, err := os.ReadFile(repoFile(compiler.ConfigName))
	if err != nil || !bytes.HasPrefix(site, []byte("package site\n")) {
		t.Fatalf("the repository's operator file: %v", err)
	}
	srv := pdnsEnv(t)
	t.Setenv("VAULT_TOKEN", "")
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "tenants"), os.DirFS(repoFile("tenants"))); err != nil {
		t.Fatal(err)
	}
	local := strings.Replace(string(site), `"http://127.0.0.1:8081"`, `"`+srv.URL+`"`, 1)
	local = strings.Replace(local, `"127.0.0.1:5300"`, `"`+srv.DNSAddr+`"`, 1)
	if local == string(site) {
		t.Fatal("site.cue no longer names the PowerDNS this test replaces")
	}
	if err := os.WriteFile(filepath.Join(dir, compiler.ConfigName), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ran := map[string]bool{}
	for _, args := range append(workflowCommands(vetYAML), workflowCommands(diffYAML)...) {
		ran[args[0]] = true
		switch args[0] {
		case "vet":
			code, out, errOut := siteRun(t, srv, args...)
			if code != exitOK || errOut != "" || !strings.HasPrefix(out, "ok: 3 tenants") {
				t.Errorf("site %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
			}
		case "diff":
			args = append(args, "--only", "dns", "--target", "dns/office1.example.test.")
			code, out, errOut := siteRun(t, srv, args...)
			if code != exitOK {
				t.Errorf("site %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
			}
			for _, want := range []string{"### site diff\n", "| **total** |", "<details><summary><code>dns/office1.example.test.</code> (tenant office1)"} {
				if !strings.Contains(out, want) {
					t.Errorf("site %s: stdout lacks %q:\n%s", strings.Join(args, " "), want, out)
				}
			}
		default:
			t.Errorf("the workflows run site %s, which this test does not know how to check", args[0])
		}
	}
	if !ran["vet"] || !ran["diff"] {
		t.Errorf("the workflows should run site vet and site diff; they run %v", ran)
	}
}

// TestRepositoryOperatorFile: from the top of the repository, as make
// test and the README's workflow run it, site vet ./tenants/... reads
// the operator's file at the top, outside tenants/ (the directory
// tenants' pull requests write to), and the example tenants vet with it.
func TestRepositoryOperatorFile(t *testing.T) {
	t.Chdir(repoFile("."))
	t.Setenv("NO_COLOR", "1")
	if got, err := compiler.FindConfig("", []string{"./tenants/..."}); err != nil || got != compiler.ConfigName {
		t.Fatalf("from the top of the repository site reads %q (%v), want %s", got, err, compiler.ConfigName)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"vet", "./tenants/..."}, &out, &errOut); code != exitOK || !strings.HasPrefix(out.String(), "ok: ") {
		t.Fatalf("site vet ./tenants/...: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

// TestDiffMarkdownSaysWhyThereIsNoPlan: the workflow posts stdout as the
// comment, so a diff that cannot make a plan says why there, as Markdown,
// not only on stderr: here a pull request adds a tenant that the base
// branch's site.cue, which the diff runs with, does not grant yet. (The
// comment was empty, and the step posting it failed.)
func TestDiffMarkdownSaysWhyThereIsNoPlan(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "tenants"), os.DirFS(repoFile("tenants"))); err != nil {
		t.Fatal(err)
	}
	site, err := os.ReadFile(repoFile("site.cue"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"base-site.cue":    string(site),
		"tenants/acme.cue": "package tenants\n\ntenants: acme: domain: \"acme.example.test\"\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	for _, format := range []string{"markdown", "text"} {
		var out, errOut bytes.Buffer
		code := run([]string{"diff", "--format", format, "--config", "base-site.cue", "./tenants/..."}, &out, &errOut)
		if code != exitError || !strings.Contains(errOut.String(), "acme.cue:3:") {
			t.Fatalf("--format %s: exit %d, want %d with the problem at tenants/acme.cue:3 on stderr\nstdout:\n%s\nstderr:\n%s", format, code, exitError, out.String(), errOut.String())
		}
		switch format {
		case "markdown":
			for _, want := range []string{"### site diff\n", "**No plan**", "acme.cue:3:"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the comment lacks %q:\n%s", want, out.String())
				}
			}
		default:
			// Text goes to a terminal or a log, where stderr already says it.
			if out.Len() != 0 {
				t.Errorf("--format text wrote to stdout:\n%s", out.String())
			}
		}
	}
}
