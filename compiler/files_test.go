package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpand checks how command-line paths become files: a file, a
// directory's own .cue files, dir/... recursively (skipping hidden,
// _-prefixed, testdata and cue.mod directories), each file once.
func TestExpand(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.cue", "b.txt", "sub/c.cue", "sub/deeper/d.cue", ".hidden/e.cue", "_skip/f.cue", "testdata/g.cue", "cue.mod/h.cue", "empty/x.txt"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	tests := []struct {
		name  string
		paths []string
		files string
		diags string
	}{
		{"file", []string{"a.cue"}, "a.cue", ""},
		{"dir", []string{"."}, "a.cue", ""},
		{"recursive", []string{"./..."}, "a.cue sub/c.cue sub/deeper/d.cue", ""},
		{"recursive subdir", []string{"sub/..."}, "sub/c.cue sub/deeper/d.cue", ""},
		{"one file named twice", []string{"a.cue", "./a.cue", filepath.Join(root, "a.cue"), "."}, "a.cue", ""},
		{"missing", []string{"nope.cue"}, "", "nope.cue: no such file or directory; check the path"},
		{"not cue", []string{"b.txt"}, "", "b.txt: not a .cue file; site reads tenant specs written in CUE"},
		{"dir without cue", []string{"empty"}, "", `empty: no .cue files in this directory; use "empty/..." to include subdirectories`},
		{"tree without cue", []string{"empty/..."}, "", "empty/...: no .cue files in this directory or below it"},
		{"file with dots", []string{"a.cue/..."}, "", `a.cue/...: is a file; "/..." needs a directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, diags := expand(tt.paths)
			if got := strings.Join(files, " "); got != tt.files {
				t.Errorf("files: got %q, want %q", got, tt.files)
			}
			got := ""
			if len(diags) > 0 {
				got = diags.Error()
			}
			if got != tt.diags {
				t.Errorf("diagnostics: got %q, want %q", got, tt.diags)
			}
		})
	}
}
