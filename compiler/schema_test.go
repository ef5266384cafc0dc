package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaWithCueCLI checks the promise in schema/: a user with the
// cue CLI can vet a file on its own, a tenant file with cue vet -c
// schema/*.cue FILE and the operator's file with cue vet -c
// schema/site/*.cue site.cue (cue vets one package at a time). It needs
// the cue CLI (see cueCLI).
func TestSchemaWithCueCLI(t *testing.T) {
	cue := cueCLI(t)
	glob := func(pattern string) []string {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no files match %s: %v", pattern, err)
		}
		return files
	}
	tenantSchema, siteSchema := glob("../schema/*.cue"), glob("../schema/site/*.cue")
	examples := glob("../tenants/*.cue")
	tests := []struct {
		name   string
		schema []string
		file   string // a path, or the file's source when it starts with "package"
		want   string // "" when cue vet must pass, else a substring of its output
	}{
		{"example tenants", tenantSchema, strings.Join(examples, "\x00"), ""},
		{"example site.cue", siteSchema, "../site.cue", ""},
		{"literal credential", siteSchema, "package site\nproviders: p: powerdns: {url: \"http://x\", api_key: \"secret\"}\ntenants: a: domains: [\"a.example\"]\n", "conflicting values"},
		{"provider struct in a tenant", tenantSchema, "package tenants\ntenants: a: {domain: \"a.example\", dns: zones: \"a.example\": provider: powerdns: {url: \"http://x\"}}\n", "conflicting values"},
		{"misspelt field", tenantSchema, "package tenants\ntenants: a: {domain: \"a.example\", domian: \"x\"}\n", "field not allowed"},
		{"autostart required", tenantSchema, "package tenants\ntenants: a: {domain: \"a.example\", vms: v: host: \"kvm1\"}\n", "autostart: field is required but not present"},
		// A grant with neither domains nor delegate is site vet's to refuse
		// (rules/site_domains): "one of two fields" is no field's constraint.
		{"grant domains are names", siteSchema, "package site\ntenants: a: domains: [\"\"]\n", "invalid value"},
		{"grant of a delegated name only", siteSchema, "package site\ntenants: a: delegate: [\"a.example\"]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := strings.Split(tt.file, "\x00")
			if strings.HasPrefix(tt.file, "package") {
				p := filepath.Join(t.TempDir(), "spec.cue")
				if err := os.WriteFile(p, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
				files = []string{p}
			}
			out, err := exec.Command(cue, append(append([]string{"vet", "-c"}, tt.schema...), files...)...).CombinedOutput()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("cue vet failed: %v\n%s", err, out)
			case tt.want != "" && err == nil:
				t.Errorf("cue vet passed, want an error with %q", tt.want)
			case tt.want != "" && !strings.Contains(string(out), tt.want):
				t.Errorf("cue vet said:\n%s\nwant it to contain %q", out, tt.want)
			}
		})
	}
}

// TestPatternWordsMatchSchema keeps the plain words for schema regexes
// in step with the schema: every regex they describe is in it.
func TestPatternWordsMatchSchema(t *testing.T) {
	var src strings.Builder
	files, _ := filepath.Glob("../schema/*.cue")
	siteFiles, _ := filepath.Glob("../schema/site/*.cue")
	for _, f := range append(files, siteFiles...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for pattern := range patternWords {
		if !strings.Contains(src.String(), "=~"+pattern) {
			t.Errorf("schema has no =~%s; update patternWords", pattern)
		}
	}
}
