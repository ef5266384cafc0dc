package compiler

import (
	"os/exec"
	"testing"

	"github.com/site-tools/site/compiler/testneed"
)

// cueCLI is the path of the cue CLI (make test and make bench install
// it). Without it the test is skipped, except in CI (CI=true), where it
// fails: CI must run the real thing.
func cueCLI(t *testing.T) string {
	t.Helper()
	return testneed.Tool(t, "cue", "go install cuelang.org/go/cmd/cue@v0.17.1")
}

// TestCueFmtClean keeps the schema, the example tenants and the
// operator's file (site.cue) as cue fmt writes them: a new user's first cue fmt
// must not rewrite the files they copied from.
func TestCueFmtClean(t *testing.T) {
	cmd := exec.Command(cueCLI(t), "fmt", "--check", "--files", "../schema", "../tenants", "../site.cue")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cue fmt --check: %v; these files are not formatted (run cue fmt --files schema tenants site.cue):\n%s", err, out)
	}
}
