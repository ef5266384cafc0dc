package manual

import (
	"os"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
)

// TestRenderText renders a topic for a terminal, plain and bold, and
// compares it with the golden files beside it (-update rewrites them).
// It moved here from cmd/site with the renderer.
func TestRenderText(t *testing.T) {
	md, err := os.ReadFile("testdata/render.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		bold   bool
	}{{"testdata/render.txt", false}, {"testdata/render.bold.txt", true}} {
		golden.Check(t, c.golden, []byte(RenderText(string(md), c.bold)))
	}
}

// TestWriteList: every topic on one line under the list's heading,
// names aligned, titles cut to fit.
func TestWriteList(t *testing.T) {
	if got := oneLine("abcdefghij", 8); got != "abcde..." {
		t.Errorf("oneLine cut to 8 = %q, want abcde...", got)
	}
	if got := oneLine("short", 8); got != "short" {
		t.Errorf("oneLine of a short title = %q", got)
	}
	var b strings.Builder
	WriteList(&b)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2+len(Names()) || !strings.HasPrefix(lines[0], "site help TOPIC prints one of these") {
		t.Fatalf("WriteList printed %d lines for %d topics:\n%s", len(lines), len(Names()), b.String())
	}
	for i, name := range Names() {
		if !strings.HasPrefix(lines[2+i], "  "+name+" ") {
			t.Errorf("line %d = %q, want topic %s", 2+i, lines[2+i], name)
		}
	}
}
