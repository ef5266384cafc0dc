package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaWithCueCLI checks the promise in schema/: a user with the
// cue CLI can vet a spec on its own with cue vet -c schema/*.cue FILE.
// It needs the cue CLI (make test and make bench install it); without it
// the test is skipped, except in CI (CI=true), where it fails.
func TestSchemaWithCueCLI(t *testing.T) {
	cue, err := exec.LookPath("cue")
	if err != nil {
		msg := "the cue CLI is not on PATH: go install cuelang.org/go/cmd/cue@v0.17.1"
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and " + msg)
		}
		t.Skip(msg)
	}
	schemaFiles, err := filepath.Glob("../schema/*.cue")
	if err != nil || len(schemaFiles) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	examples, _ := filepath.Glob("../tenants/*.cue")
	tests := []struct {
		name string
		file string // a path, or the spec's source when it starts with "package"
		want string // "" when cue vet must pass, else a substring of its output
	}{
		{"example tenants", strings.Join(examples, "\x00"), ""},
		{"literal credential", "package tenants\ntenants: a: {domain: \"a.example\", dns: zones: \"a.example\": provider: powerdns: {url: \"http://x\", api_key: \"secret\"}}\n", "conflicting values"},
		{"misspelt field", "package tenants\ntenants: a: {domain: \"a.example\", domian: \"x\"}\n", "field not allowed"},
		{"autostart required", "package tenants\ntenants: a: {domain: \"a.example\", vms: v: host: \"qemu:///system\"}\n", "autostart: field is required but not present"},
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
			out, err := exec.Command(cue, append(append([]string{"vet", "-c"}, schemaFiles...), files...)...).CombinedOutput()
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
	for _, f := range files {
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
