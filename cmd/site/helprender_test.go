package main

import (
	"os"
	"testing"
)

// TestRenderText renders a topic for a terminal, plain and bold, and
// compares it with the golden files beside it (-update-scripts rewrites
// them).
func TestRenderText(t *testing.T) {
	md, err := os.ReadFile(pkgFile("testdata/help/render.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		bold   bool
	}{{"testdata/help/render.txt", false}, {"testdata/help/render.bold.txt", true}} {
		got := renderText(string(md), c.bold)
		if *updateScripts {
			if err := os.WriteFile(pkgFile(c.golden), []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(pkgFile(c.golden))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("renderText(bold=%v) = \n%s\nwant (%s)\n%s", c.bold, got, c.golden, want)
		}
	}
}
