// Package golden compares rendered test output with golden files
// (testdata/*.golden) and rewrites them when the test binary runs with
// -update, so a change to the output is reviewed as a diff of the file.
// Every package with golden files uses it, so -update means the same
// everywhere. It is imported by tests only.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Check fails t unless got equals the content of the file at path. With
// -update it first writes got there, creating the directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it if the change is intended)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
