package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests interrupt site apply in the middle of a PowerDNS PATCH
// split in three by a small body limit. The test's proxy holds the
// first PATCH until the signal has been handled, so "in the middle" is
// a fact, not a matter of timing.

// signalled is a run of site apply the test interrupts through an
// injected signal channel, with os.Exit replaced.
type signalled struct {
	sigs  chan os.Signal
	exits chan int // codes exitNow was called with
	out   *bytes.Buffer
	err   *watchBuffer
	code  chan int // site's exit code when run returns
	// atExit, when set, runs as exitNow is called, before the exit is
	// reported: what it sees is what the process left behind when it
	// ended.
	atExit func()
}

// watchBuffer is stderr that a test can wait on while site writes it.
type watchBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
	return w.b.Write(p)
}

func (w *watchBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor returns once s has been written, or false when site ended
// (done) without writing it.
func (w *watchBuffer) waitFor(s string, done <-chan struct{}) bool {
	for {
		w.mu.Lock()
		has, changed := strings.Contains(w.b.String(), s), w.changed
		w.mu.Unlock()
		if has {
			return true
		}
		select {
		case <-changed:
		case <-done:
			return strings.Contains(w.String(), s)
		}
	}
}

// startInterruptible starts site with args in the background, its
// signals coming from the returned run's sigs; a call of exitNow ends
// the signal watcher (as the process would end) and is reported on
// exits.
func startInterruptible(t *testing.T, args ...string) (*signalled, <-chan struct{}) {
	s := &signalled{sigs: make(chan os.Signal, 2), exits: make(chan int, 1), out: &bytes.Buffer{},
		err: &watchBuffer{changed: make(chan struct{})}, code: make(chan int, 1)}
	oldSource, oldExit := signalSource, exitNow
	signalSource = func() (<-chan os.Signal, func()) { return s.sigs, func() {} }
	exitNow = func(code int) {
		if s.atExit != nil {
			s.atExit()
		}
		s.exits <- code
		runtime.Goexit()
	}
	t.Cleanup(func() { signalSource, exitNow = oldSource, oldExit })
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.code <- run(args, s.out, s.err)
	}()
	return s, done
}

// waitForPatch returns once the held PATCH has arrived, and fails the
// test when site ended without sending it (a spec or setup error), which
// would otherwise leave the test waiting until the suite's timeout.
func (s *signalled) waitForPatch(t *testing.T, inPatch, done <-chan struct{}) {
	t.Helper()
	select {
	case <-inPatch:
	case <-done:
		t.Fatalf("site ended before its first PATCH (exit %d):\nstdout:\n%s\nstderr:\n%s", <-s.code, s.out, s.err)
	}
}

// splitZone is a tenant whose zone needs a PATCH that a 2000-byte body
// limit splits in three, and the rule that holds the first PATCH until
// release is closed (inPatch is closed when it arrives).
func splitZone(t *testing.T, srv *pdnstest.Server, zone string) (file string, inPatch, release chan struct{}) {
	t.Helper()
	srv.CreateZone(t, zone+".")
	var records strings.Builder
	for i := range 24 {
		fmt.Fprintf(&records, "\t\t\th%02d: A: [\"192.0.2.%d\"]\n", i, i+1)
	}
	file = lockedTenantFile(t, srv, zone, records.String())
	useBackend(t, "powerdns", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["powerdns"] = &powerdns.Driver{MaxBodyBytes: 2000, Attempts: 1}
	})
	inPatch, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodPatch {
			once.Do(func() {
				close(inPatch)
				<-release
			})
		}
		return 0, "", false
	})
	return file, inPatch, release
}

// TestInterruptFinishesTheRequestInFlight: Ctrl-C during part 1 of a
// split PATCH says at once what site is finishing, lets part 1 finish,
// sends no part after it, and reports the step as applied in part.
func TestInterruptFinishesTheRequestInFlight(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "ctrlc.example.test"
	file, inPatch, release := splitZone(t, srv, zone)
	s, done := startInterruptible(t, "apply", "--yes", file)
	s.waitForPatch(t, inPatch, done)
	s.sigs <- os.Interrupt
	finishing := "site: interrupted: finishing dns/" + zone + ". (in flight), starting nothing new; interrupt again to exit within 2s, which may leave it half-done"
	if !s.err.waitFor(finishing, done) {
		t.Fatalf("stderr lacks %q:\n%s", finishing, s.err)
	}
	close(release)
	code := <-s.code
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	for _, want := range []string{
		"partial   dns/" + zone + ".: applied part 1 of 3; interrupted before part 2, which was not sent: run site apply again to converge",
		// One read, the re-read of the zone that checks its 24 creates
		// are still free, then part 1, a write.
		"Apply interrupted: 0 applied, 1 partial; 1 read, 1 write.",
	} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, s.out)
		}
	}
	if want := "site: apply was interrupted (see the report above"; !strings.Contains(s.err.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.err)
	}
	if got := srv.Requests(zone + ".").PATCH; got != 1 {
		t.Errorf("sent %d PATCHes, want only the one in flight", got)
	}
	if got := srv.Query(t, "h00."+zone+".", "A"); len(got) != 1 {
		t.Errorf("h00: got %q, want part 1 applied and served", got)
	}
}

// TestSecondInterruptExitsAtOnce: a second Ctrl-C while part 1 is still
// in flight exits 130 (within releaseOnExit, the step keeping its
// tenant's lock) and names the step that may be half-done.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "twice.example.test"
	file, inPatch, release := splitZone(t, srv, zone)
	s, done := startInterruptible(t, "apply", "--yes", file)
	s.waitForPatch(t, inPatch, done)
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: interrupted: finishing", done) {
		t.Fatalf("no message after the first interrupt:\n%s", s.err)
	}
	s.sigs <- os.Interrupt
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	want := "site: interrupted again: exiting now; these steps may be half-done: dns/" + zone + ". (site diff shows where they stand; site apply converges them)"
	if !strings.Contains(s.err.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.err)
	}
	close(release) // the process would be gone; let the test's run end
	<-done
}

// exitWithin sets how long a second interrupt waits for requests in
// flight and for the release of the locks, for one test: a long bound
// keeps "within the bound" out of a test's outcome, a short one makes a
// test of giving up quick.
func exitWithin(t *testing.T, d time.Duration) {
	old := releaseOnExit
	releaseOnExit = d
	t.Cleanup(func() { releaseOnExit = old })
}
