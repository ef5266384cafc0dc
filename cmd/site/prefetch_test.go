package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// appliedZone writes a tenant with one zone (name, trailing dot) on srv
// and applies it: the zone is converged, and the file's evaluation is in
// the cache, so a diff of it reads ahead.
func appliedZone(t *testing.T, srv *pdnstest.Server, name string) string {
	t.Helper()
	file := tenantFile(t, srv, strings.TrimSuffix(name, "."), `www: A: ["192.0.2.80"]`)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	return file
}

// TestDiffReadsCachedZonesWhileLoading: a diff of an unchanged (cached)
// tenant file reads its zones while the load goes on. The proof: a
// second file the diff names evaluates until its time budget passes
// (two seconds, far more than a GET of a small zone takes), so the
// load fails; the zone's GET was sent before, while it ran. Those
// diffs run as processes of their own: an evaluation past its budget
// is left running, and must end with its process. A diff that
// evaluates the tenant file, observes no DNS, or targets other steps
// reads nothing before its load ends. When the load succeeds, the read
// ahead is the observation's: one GET in all.
func TestDiffReadsCachedZonesWhileLoading(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "ahead.example.test."
	file := appliedZone(t, srv, zone)
	// Not beside the tenant's file: a diff of that file alone must not
	// load it.
	bomb, err := os.ReadFile(repoFile("compiler/testdata/hostile/bomb_comprehension_bomb.cue"))
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "a.cue")
	if err := os.WriteFile(slow, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		flags []string
		gets  int
	}{
		{name: "cached", gets: 1},
		{name: "--no-cache", flags: []string{"--no-cache"}},
		{name: "--only vm", flags: []string{"--only", "vm"}},
		{name: "--target naming the zone", flags: []string{"--target", "dns/*"}, gets: 1},
		{name: "--target naming another zone", flags: []string{"--target", "dns/other.example.test."}},
	}
	site := siteProcess(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetRequests(zone)
			args := append(append([]string{"diff", "--eval-timeout", "2s"}, tc.flags...), file, slow)
			cmd := exec.Command(site, args...)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitError || !strings.Contains(errOut.String(), "passed its") {
				t.Fatalf("diff: %v, want exit %d for a.cue's budget\nstdout:\n%s\nstderr:\n%s", err, exitError, &out, &errOut)
			}
			if got := srv.Requests(zone).GET; got != tc.gets {
				t.Errorf("%d GETs of the zone by a diff whose load failed, want %d", got, tc.gets)
			}
		})
	}

	srv.ResetRequests(zone)
	code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff exit %d, want 0 and no changes\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := srv.Requests(zone).GET; got != 1 {
		t.Errorf("a converged diff from the cache read the zone %d times, want once", got)
	}
}

// TestInterruptStopsAReadAhead: Ctrl-C during a diff whose read ahead
// the server does not answer ends the diff at once, as it ends a zone
// read the observation sent itself: reads ahead are observing too.
func TestInterruptStopsAReadAhead(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "ahead-held.example.test."
	file := appliedZone(t, srv, zone)
	inGet, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	var once sync.Once
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone) {
			once.Do(func() { close(inGet) })
			<-release
		}
		return 0, "", false
	})
	s, done := startInterruptible(t, "diff", file)
	select {
	case <-inGet:
	case <-done:
		t.Fatalf("site ended before reading the zone (exit %d):\n%s", <-s.code, s.err)
	}
	s.sigs <- os.Interrupt
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a hang guard: the GET is held until the test ends
		t.Fatal("diff did not end after Ctrl-C while its read ahead was held")
	}
	if code := <-s.code; code != exitError || !strings.Contains(s.err.String(), "observing was interrupted") {
		t.Errorf("exit %d, want %d and observing was interrupted; stderr:\n%s", code, exitError, s.err)
	}
}
