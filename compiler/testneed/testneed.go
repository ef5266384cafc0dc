// Package testneed is the one rule for a test whose real component is
// missing from the machine: it skips, saying what to install, except in
// CI (CI=true), where it fails, because CI must run the real thing.
package testneed

import (
	"os"
	"os/exec"
	"testing"
)

// Need skips t with msg, or fails it with msg when CI=true.
func Need(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s", msg)
	}
	t.Skip("skipping: " + msg)
}

// Tool returns the path of the command name, or, when it is not on
// PATH, ends t as Need does with a message naming it and install (how
// to get it).
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Need(t, name+" is not on PATH: "+install)
	}
	return path
}
