package compiler

import (
	"os"
	"os/exec"
	"testing"
)

// TestCueFmtClean keeps the schema and the example tenants as cue fmt
// writes them: a new user's first cue fmt must not rewrite the files
// they copied from.
func TestCueFmtClean(t *testing.T) {
	cue, err := exec.LookPath("cue")
	if err != nil {
		msg := "the cue CLI is not on PATH: go install cuelang.org/go/cmd/cue@v0.17.1"
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and " + msg)
		}
		t.Skip(msg)
	}
	cmd := exec.Command(cue, "fmt", "--check", "--files", "../schema", "../tenants")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cue fmt --check: %v; these files are not formatted (run cue fmt --files schema tenants):\n%s", err, out)
	}
}
