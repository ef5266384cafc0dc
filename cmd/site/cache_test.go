package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// cacheFiles counts the files in the cache directory dir.
func cacheFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestVetCache: site vet keeps each file's evaluation in $SITE_CACHE_DIR
// and prints the same from it; --no-cache neither writes nor reads it.
func TestVetCache(t *testing.T) {
	a, err := txtar.ParseFile(pkgFile("testdata/script/vet_errors.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		if filepath.Ext(f.Name) == ".cue" {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cache := t.TempDir()
	t.Setenv("SITE_CACHE_DIR", cache)
	vet := func(flags ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append(append([]string{"vet"}, flags...), dir), &out, &errOut); code != exitError {
			t.Fatalf("site vet exited %d, want %d (the fixture has errors); stderr: %s", code, exitError, errOut.String())
		}
		return out.String()
	}
	want := vet("--no-cache")
	if n := cacheFiles(t, cache); n != 0 {
		t.Fatalf("--no-cache wrote %d files to the cache", n)
	}
	if got := vet(); got != want {
		t.Errorf("first run with the cache:\n%s\nwant\n%s", got, want)
	}
	n := cacheFiles(t, cache)
	if n == 0 {
		t.Fatal("nothing was cached")
	}
	if got := vet(); got != want {
		t.Errorf("from the cache:\n%s\nwant\n%s", got, want)
	}
	// Spoil every entry: a run with the cache would rewrite them,
	// --no-cache leaves them as they are.
	var entries []string
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		// .pruned is the pruning marker, no entry.
		if err == nil && !d.IsDir() && d.Name() != ".pruned" {
			entries = append(entries, p)
			os.WriteFile(p, []byte("site-cache 1 garbage\n"), 0o600)
		}
		return nil
	})
	if got := vet("--no-cache"); got != want {
		t.Errorf("--no-cache:\n%s\nwant\n%s", got, want)
	}
	for _, p := range entries {
		if b, _ := os.ReadFile(p); string(b) != "site-cache 1 garbage\n" {
			t.Errorf("--no-cache rewrote %s", p)
		}
	}
	if got := vet(); got != want {
		t.Errorf("with spoilt entries:\n%s\nwant\n%s", got, want)
	}
	for _, p := range entries {
		if b, _ := os.ReadFile(p); string(b) == "site-cache 1 garbage\n" {
			t.Errorf("a run with the cache left the spoilt %s", p)
		}
	}
}
