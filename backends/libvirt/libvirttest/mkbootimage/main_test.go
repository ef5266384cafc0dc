package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritesOnlyWhatDiffers: the image is written when missing or
// different, left alone when the same (site never re-uploads a base
// image, so a demo rerun must not touch it), and a build that cannot
// run says why.
func TestWritesOnlyWhatDiffers(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "built.img"), filepath.Join(dir, "boot.img")
	built := func() (string, error) { return src, nil }
	steps := []struct {
		name    string
		content string // of the built image
		want    string // in the output
	}{
		{"missing", "one", "written"},
		{"same", "one", "up to date"},
		{"changed", "two", "written"},
	}
	for _, s := range steps {
		if err := os.WriteFile(src, []byte(s.content), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run([]string{"-o", dst}, &out, built); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !strings.Contains(out.String(), s.want) {
			t.Errorf("%s: output %q, want %q", s.name, out.String(), s.want)
		}
		if got, _ := os.ReadFile(dst); string(got) != s.content {
			t.Errorf("%s: %s holds %q, want %q", s.name, dst, got, s.content)
		}
	}
	need := func() (string, error) { return "", errors.New("syslinux not found: install it") }
	if err := run([]string{"-o", dst}, io.Discard, need); err == nil || !strings.Contains(err.Error(), "syslinux not found") {
		t.Errorf("got %v, want the missing package named", err)
	}
	if err := run(nil, io.Discard, built); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("without -o: got %v, want the usage", err)
	}
}
