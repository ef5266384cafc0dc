package compiler

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHashSpec: a saved plan records a hash of the operator's file and
// of each tenant file named, and nothing when a path names no spec
// (loading reports that with its position).
func TestHashSpec(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "site.cue")
	tenant := filepath.Join(dir, "tenants", "a.cue")
	if err := os.MkdirAll(filepath.Dir(tenant), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{config, tenant} {
		if err := os.WriteFile(f, []byte("package site\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := HashSpec(config, []string{tenant})
	if err != nil || spec == nil {
		t.Fatalf("HashSpec: %v, %v", spec, err)
	}
	if len(spec.Files) != 2 || len(spec.Paths) != 1 {
		t.Errorf("HashSpec recorded %v of %v, want the two files of one path", spec.Files, spec.Paths)
	}
	if spec, err := HashSpec(config, []string{filepath.Join(dir, "tenants", "none.cue")}); spec != nil || err != nil {
		t.Errorf("HashSpec of a missing file: %v, %v; want nothing, for loading to report", spec, err)
	}
}
