package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/testneed"
)

// Every run of a command reaches --samples as one line naming the
// workspace and the command, with its wall and CPU time, so that the
// spread behind a median can be read.
func TestRunWritesEverySample(t *testing.T) {
	sh := testneed.Tool(t, "sh", "apt-get install dash")
	var out bytes.Buffer
	samplesOut = &out
	defer func() { samplesOut = nil }()
	dir := t.TempDir()
	c := command{dir: dir, name: sh, args: []string{"-c", "exit 3"}, ok: []int{3}}
	for range 2 {
		if _, err := c.run(); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d sample lines, want 2:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 5 || !strings.HasSuffix(dir, f[0]) || f[1] != "sh -c exit 3" {
			t.Errorf("sample line %q: want workspace, command, wall, CPU, MB", l)
		}
	}
}

// Every site command the table runs waits for a slow server as long as
// requestTimeout, so that a busy machine slows a row instead of failing
// the table (site's own default is 30 s per request).
func TestSiteRunsWaitForASlowServer(t *testing.T) {
	b := &bench{srv: &pdnstest.Server{}, site: "site", cache: t.TempDir()}
	w := workspace{dir: t.TempDir()}
	for _, c := range []command{b.diff(w), b.diff(w, "--no-cache"), b.apply(w), b.diffOf(w, "t0001.cue")} {
		args := strings.Join(c.args, " ")
		if !strings.Contains(args, "--request-timeout "+requestTimeout) {
			t.Errorf("site %s: no --request-timeout %s", args, requestTimeout)
		}
	}
}
