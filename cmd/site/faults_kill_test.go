package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// TestFaultsPowerDNSKilled kills site apply (SIGKILL: no handler runs,
// no lock is released) at 20 seeded points of a three-zone apply: at
// its Nth API request, which PowerDNS then either never sees or carries
// out after the process is gone. The apply runs as a process of its
// own, this test binary under the name site (TestMain). After each kill
// nothing foreign is lost and no wanted rrset deleted; the next apply
// says the dead run holds the lock, the operator breaks it with site
// unlock as the message tells, and the apply after that converges.
func TestFaultsPowerDNSKilled(t *testing.T) {
	sitePath := siteProcess(t)
	fs := newFaultSite(t)
	seed := *faultSeed
	rnd := rand.New(rand.NewSource(seed))

	var (
		mu      sync.Mutex
		killAt  int  // kill at this request; 0: never
		forward bool // let the request that kills reach PowerDNS
		seen    int
		child   *os.Process
		killed  bool
	)
	fs.setAnswer(func(*http.Request) (int, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		seen++
		if killAt == 0 || killed || seen < killAt || child == nil {
			return 0, "", false
		}
		child.Kill()
		killed = true
		if forward {
			return 0, "", false
		}
		return http.StatusBadGateway, `{"error": "never arrived"}`, true
	})
	// apply runs site apply as a process, killed at request at (0: let
	// it finish), and returns whether it was killed and its output.
	apply := func(at int, fwd bool) (bool, string) {
		var out bytes.Buffer
		cmd := exec.Command(sitePath, "apply", "--yes", fs.file)
		cmd.Stdout, cmd.Stderr = &out, &out
		mu.Lock()
		killAt, forward, seen, killed, child = at, fwd, 0, false, nil
		mu.Unlock()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		child = cmd.Process
		mu.Unlock()
		err := cmd.Wait()
		mu.Lock()
		defer mu.Unlock()
		wasKilled := killed
		killAt, child = 0, nil
		if !wasKilled && err != nil {
			t.Fatalf("site apply, not killed: %v\n%s", err, out.String())
		}
		return wasKilled, out.String()
	}

	// A first whole apply takes the zones over; a second counts the
	// requests of one that rewrites every rrset, the range the kills
	// fall in.
	fs.writeVersion(t, 1)
	apply(0, false)
	v := 2
	fs.writeVersion(t, v)
	fs.resetRequests()
	apply(0, false)
	requests := fs.requests()

	kills, locked := 0, 0
	for i := 0; i < 20 && !t.Failed(); i++ {
		v += 1 + rnd.Intn(50)
		at, fwd := 1+rnd.Intn(requests), rnd.Intn(2) == 0
		what := fmt.Sprintf("seed %d kill %d (at request %d of %d, forwarded %v, version %d)", seed, i, at, requests, fwd, v)
		fs.writeVersion(t, v)
		before := fs.snapshot(t)
		wasKilled, out := apply(at, fwd)
		if wasKilled {
			kills++
		}
		mid := fs.snapshot(t)
		fs.checkKept(t, what+" after the kill", before, mid, v)

		code, stdout, stderr := siteRun(t, fs.srv, "apply", "--yes", fs.file)
		// A run killed while taking the lock may leave a claim instead.
		if code == exitError && (strings.Contains(stderr, "is being applied by another run") || strings.Contains(stderr, "is being taken by another run")) {
			if !strings.Contains(stderr, "site unlock") {
				t.Errorf("%s: the lock message does not say how to break it:\n%s", what, stderr)
			}
			locked++
			fs.unlockIfHeld(t, what)
			code, stdout, stderr = siteRun(t, fs.srv, "apply", "--yes", fs.file)
		}
		fs.checkRun(t, what+", next apply", mid, fs.snapshot(t), v, code, stdout, stderr)
		if code != exitOK {
			t.Errorf("%s: the apply after the kill exit %d\nkilled run:\n%s\nstdout:\n%s\nstderr:\n%s", what, code, out, stdout, stderr)
		}
	}
	// A point past a shorter run's last request lets it finish; most
	// must land.
	if kills < 15 {
		t.Errorf("seed %d: only %d of 20 runs were killed, want 15 or more", seed, kills)
	}
	// A run killed after taking the lock leaves it held: the path an
	// operator takes then must have been taken.
	if locked == 0 {
		t.Errorf("seed %d: no killed run left its lock behind; the kills all fell before the lock was taken", seed)
	}
	t.Logf("seed %d: %d runs killed, %d left the lock held, %d requests in a whole apply", seed, kills, locked, requests)
}
