package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// workflowCommands returns the site command lines of the example GitHub
// Actions workflow in the README, without "./site" and any redirection.
func workflowCommands(t *testing.T) [][]string {
	t.Helper()
	readme, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\n# .github/workflows/site.yml\n")
	yaml, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("README has no ```yaml block starting with # .github/workflows/site.yml")
	}
	cmd := regexp.MustCompile(`(?m)^\s*(?:- run: )?\./site (.*)$`)
	var out [][]string
	for _, m := range cmd.FindAllStringSubmatch(yaml, -1) {
		line, _, _ := strings.Cut(m[1], " >")
		out = append(out, strings.Fields(line))
	}
	if len(out) == 0 {
		t.Fatal("the README's workflow runs no ./site command")
	}
	return out
}

// TestREADMEWorkflow runs the README's pull-request workflow against the
// example tenants, so it stays true: vet exactly as written; diff as
// written, against a PowerDNS of the test's own (named in the
// base-site.cue the workflow makes from tenants/site.cue) and scoped to
// office1's zone, the one part of tenants/ a test can observe here.
func TestREADMEWorkflow(t *testing.T) {
	cmds := workflowCommands(t)
	srv := pdnsEnv(t)
	t.Setenv("VAULT_TOKEN", "")
	site, err := os.ReadFile(repoFile("tenants/site.cue"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "tenants"), os.DirFS(repoFile("tenants"))); err != nil {
		t.Fatal(err)
	}
	base := strings.Replace(string(site), `"http://127.0.0.1:8081"`, `"`+srv.URL+`"`, 1)
	base = strings.Replace(base, `"127.0.0.1:5300"`, `"`+srv.DNSAddr+`"`, 1)
	if base == string(site) {
		t.Fatal("tenants/site.cue no longer names the PowerDNS this test replaces")
	}
	if err := os.WriteFile(filepath.Join(dir, "base-site.cue"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ran := map[string]bool{}
	for _, args := range cmds {
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
			t.Errorf("the workflow runs site %s, which this test does not know how to check", args[0])
		}
	}
	if !ran["vet"] || !ran["diff"] {
		t.Errorf("the workflow should run site vet and site diff; it runs %v", ran)
	}
}
