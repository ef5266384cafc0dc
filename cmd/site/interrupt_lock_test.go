package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests press Ctrl-C twice on a site apply process (kill -INT)
// while a write is in flight, and then start the next apply: a
// tenant's apply lock must outlive the exit for as long as a write of
// this run may still land, and no longer than that.

// holdOnly makes srv hold the first request match accepts until the
// returned release is called, and forward every other one at once
// (holdRequest's other matching requests wait for the held one):
// arrived is closed when the held one comes.
func holdOnly(t *testing.T, srv *pdnstest.Server, match func(*http.Request) bool) (arrived chan struct{}, release func()) {
	arrived, held := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	var released sync.Once
	release = func() { released.Do(func() { close(held) }) }
	t.Cleanup(release) // the server's proxy waits for the request it holds
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if match(r) && first.CompareAndSwap(false, true) {
			close(arrived)
			<-held
		}
		return 0, "", false
	})
	return arrived, release
}

// TestSecondInterruptKeepsTheLockOfAWriteInFlight: two tenants, one of
// whose PATCH the server holds when the second Ctrl-C comes. site exits
// 130 within the bound, releases the lock of the tenant with nothing in
// flight (its next apply runs), and keeps the other's, saying so with
// the lease's end and the unlock command: the next apply of that tenant
// is refused while the PATCH may still land. It released both, and the
// next apply observed, planned and wrote beside the PATCH in flight.
func TestSecondInterruptKeepsTheLockOfAWriteInFlight(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "a.test.")
	srv.CreateZone(t, "b.test.")
	// Both tenants' locks in b.test.'s metadata (site.cue locks).
	dir := lockedMultiTenant(t, srv, map[string][]zoneSpec{
		"office1": {{"a.test", `www: A: ["192.0.2.1"]`, ""}},
		"shop":    {{"b.test", `www: A: ["192.0.2.2"]`, ""}},
	}, "b.test.")
	office1, shop := filepath.Join(dir, "office1.cue"), filepath.Join(dir, "shop.cue")
	// shop is converged: its step writes nothing, so it is never in flight.
	if code, out, errOut := siteRun(t, srv, "apply", shop); code != exitOK {
		t.Fatalf("converging shop: exit %d\n%s\n%s", code, out, errOut)
	}
	arrived, release := holdOnly(t, srv, func(r *http.Request) bool {
		return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/zones/a.test.")
	})
	c := startSite(t, false, "apply", dir)
	select {
	case <-arrived:
	case <-c.done:
		t.Fatalf("site exited before its PATCH: exit %d\n%s\n%s", c.code, &c.out, c.err)
	}
	c.cmd.Process.Signal(os.Interrupt)
	c.waitFor(t, "site: interrupted: finishing dns/a.test.", 10*time.Second)
	c.cmd.Process.Signal(os.Interrupt)
	if code, _ := c.exit(t, 20*time.Second); code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, c.err)
	}
	// The PATCH is still held: a write of the run that exited may land.
	kept := lockEntriesOf(t, srv, "b.test.", "office1")
	if len(kept) != 1 {
		t.Errorf("office1's lock entries %+v, want the exited run's, kept while its PATCH is in flight\nstderr:\n%s", kept, c.err)
	}
	if e := lockEntriesOf(t, srv, "b.test.", "shop"); len(e) != 0 {
		t.Errorf("shop's lock is still held, though none of its steps was in flight: %+v\nstderr:\n%s", e, c.err)
	}
	code, out, errOut := siteRun(t, srv, "apply", office1)
	if code != exitError || !strings.Contains(errOut, "tenant office1 is being applied by another run") {
		t.Errorf("the next apply of office1, while the PATCH is in flight: exit %d, want %d refused by the lock\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	if got := srv.Requests("a.test.").PATCH; got != 1 {
		t.Errorf("a.test. got %d PATCHes, want only the one in flight", got)
	}
	if code, out, errOut := siteRun(t, srv, "apply", shop); code != exitOK {
		t.Errorf("the next apply of shop: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var until string
	for _, h := range kept {
		until = h.Expires.UTC().Format(time.RFC3339)
	}
	for _, want := range []string{
		"site: the apply lock of tenant office1 stays held: dns/a.test. was still in flight after 2s, so a write of it may still land;",
		"the next site apply of office1 is refused until its lease runs out at " + until,
		"site unlock office1 --ack GATE-LOCK-BREAK",
	} {
		if !strings.Contains(c.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, c.err)
		}
	}
	if strings.Contains(c.err.String(), "of tenant shop stays held") {
		t.Errorf("stderr says shop's lock stays:\n%s", c.err)
	}
	release()
}

// TestSecondInterruptReleasesTheLockOnceTheWriteIsAnswered: the second
// Ctrl-C while part 1 of a split PATCH is in flight waits for its
// answer before it lets go of the tenant's apply lock: when site exits,
// the write has landed and the lock is free. It let go at once, while
// the PATCH could still land beside the next run.
func TestSecondInterruptReleasesTheLockOnceTheWriteIsAnswered(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, time.Minute)
	const zone = "answered.example.test"
	file, inPatch, release := splitZone(t, srv, zone)
	s, done := startInterruptible(t, "apply", file)
	var atExit struct {
		entries map[string]lock.Holder
		landed  []string
	}
	s.atExit = func() {
		atExit.entries = lockEntries(t, srv, zone+".")
		atExit.landed = srv.Query(t, "h00."+zone+".", "A")
	}
	s.waitForPatch(t, inPatch, done)
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: interrupted: finishing", done) {
		t.Fatalf("no message after the first interrupt:\n%s", s.err)
	}
	s.sigs <- os.Interrupt
	waiting := "site: waiting up to 1m0s for dns/" + zone + ". to finish before releasing tenant office1's apply lock: a write of it may still land"
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		s.err.waitFor(waiting, done)
	}()
	select {
	case <-exited:
	case code := <-s.exits:
		s.exits <- code
	}
	close(release)
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	<-done
	if len(atExit.landed) != 1 {
		t.Errorf("at the exit h00 was served as %q: site let go of the lock before the PATCH in flight landed", atExit.landed)
	}
	if len(atExit.entries) != 0 {
		t.Errorf("at the exit the lock was still held: %+v\nstderr:\n%s", atExit.entries, s.err)
	}
	if !strings.Contains(s.err.String(), waiting) {
		t.Errorf("stderr lacks %q:\n%s", waiting, s.err)
	}
	if strings.Contains(s.err.String(), "stays held") {
		t.Errorf("stderr says the lock stays held:\n%s", s.err)
	}
	// The apply the exit message asks for is not refused for a minute.
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Errorf("the apply after the exit: %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// lockClaimed holds the first read of zone's lock entries that follows
// a write to them, the read that tells a run taking the lock whether
// its claim won: the claim is on the server, and the run waits for the
// read. arrived is closed when the read comes.
func lockClaimed(t *testing.T, srv *pdnstest.Server, zone string) (arrived chan struct{}, release func()) {
	var claimed atomic.Bool
	return holdRequest(t, srv, func(r *http.Request) bool {
		return claimed.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone+"/metadata")
	}, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/zones/"+zone+"/metadata/") {
			claimed.Store(true)
		}
		return 0, "", false
	})
}

// interruptTaking starts site apply file, and presses Ctrl-C twice
// while it waits for the read after its claim on zone's lock; release
// lets that read go on. atExit is the run's (see signalled).
func interruptTaking(t *testing.T, srv *pdnstest.Server, zone, file string, atExit func()) (s *signalled, done <-chan struct{}, release func()) {
	t.Helper()
	arrived, release := lockClaimed(t, srv, zone)
	s, done = startInterruptible(t, "apply", file)
	s.atExit = atExit
	select {
	case <-arrived:
	case <-done:
		t.Fatalf("site ended before it claimed the lock (exit %d):\n%s", <-s.code, s.err)
	}
	if e := lockEntries(t, srv, zone); len(e) != 1 {
		t.Fatalf("lock entries %+v while the claim waits for its read, want the claim", e)
	}
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: interrupted:", done) {
		t.Fatalf("no message after the first interrupt:\n%s", s.err)
	}
	s.sigs <- os.Interrupt
	return s, done, release
}

// TestSecondInterruptRemovesAClaimWhoseRequestReturns: the second
// Ctrl-C while apply takes its lock (its claim written, the read after
// it unanswered) waits for that request, and the entry the run wrote is
// gone when it exits. It exited at once and left the claim, which kept
// the next apply waiting or refused for the claim's whole lease.
func TestSecondInterruptRemovesAClaimWhoseRequestReturns(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, time.Minute)
	const zone = "claim.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "claim.example.test", `www: A: ["192.0.2.1"]`)
	var left map[string]lock.Holder
	s, done, release := interruptTaking(t, srv, zone, file, func() { left = lockEntries(t, srv, zone) })
	waiting := "site: waiting up to 1m0s for the requests taking tenant office1's apply lock to be answered, to remove the entries they wrote"
	said := make(chan struct{})
	go func() {
		defer close(said)
		s.err.waitFor(waiting, done)
	}()
	select {
	case <-said:
	case code := <-s.exits:
		s.exits <- code
	}
	release()
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	<-done
	if len(left) != 0 {
		t.Errorf("at the exit the zone held lock entries %+v, want none\nstderr:\n%s", left, s.err)
	}
	if !strings.Contains(s.err.String(), waiting) {
		t.Errorf("stderr lacks %q:\n%s", waiting, s.err)
	}
	if c := srv.Requests(zone); c.PATCH != 0 {
		t.Errorf("the zone was written: %+v", c)
	}
}

// TestNextApplySaysAClaimLeftBehind: a claim on the lock whose run was
// cut off while taking it refuses the next apply until its lease runs
// out, and that apply says so: a claim, whose, until when, and how to
// break it. It said "being applied by another run", an apply that was
// not running.
func TestNextApplySaysAClaimLeftBehind(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	cut := staleHolder()
	cut.ID, cut.State = "0000000000000000", lock.Claim // before every run's ID: it keeps them out
	putLockEntry(t, srv, zone, cut)
	code, out, errOut := siteRun(t, srv, "apply", file)
	if code != exitError {
		t.Fatalf("apply beside the claim: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{
		"tenant office1's apply lock is being taken by another run (host crashed-runner, pid 7, ",
		"a run cut off while taking the lock leaves its claim behind, having changed nothing, until its lease runs out at " + cut.Expires.UTC().Format(time.RFC3339),
		"break the claim with site unlock office1 --ack GATE-LOCK-BREAK",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if c := srv.Requests(zone); c.PATCH != 0 {
		t.Errorf("the zone was written: %+v", c)
	}
}

// TestSecondInterruptNamesAClaimLeftUnanswered: when the request after
// the claim is still unanswered as the time for the exit runs out, site
// exits anyway and names the entry it leaves (whose, until when) and
// the command that removes it. It left it without a word.
func TestSecondInterruptNamesAClaimLeftUnanswered(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, 100*time.Millisecond) // the read is never answered in time
	const zone = "claim.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "claim.example.test", `www: A: ["192.0.2.1"]`)
	var left map[string]lock.Holder
	s, done, release := interruptTaking(t, srv, zone, file, func() { left = lockEntries(t, srv, zone) })
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if len(left) != 1 {
		t.Fatalf("at the exit the zone held lock entries %+v, want the claim\nstderr:\n%s", left, s.err)
	}
	var claim lock.Holder
	for _, h := range left {
		claim = h
	}
	for _, want := range []string{
		"site: a request taking tenant office1's apply lock was still unanswered after 100ms: the entry it wrote, if it was written (this run's: " + claim.String() + ")",
		"stays until its lease runs out at " + claim.Expires.UTC().Format(time.RFC3339),
		"site unlock office1 --ack GATE-LOCK-BREAK removes it",
	} {
		if !strings.Contains(s.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.err)
		}
	}
	release() // the process would be gone; let the test's run end
	<-done
}

// failTaking starts site apply file, and presses Ctrl-C twice while
// the server holds its claim on zone's lock; release then writes the
// claim and answers the request with an error, as a request that timed
// out after it reached the server: the run's lock store does not know
// its claim is there. With failRemove, removing it fails too. claim is
// the entry the run wrote, read at the exit.
func failTaking(t *testing.T, srv *pdnstest.Server, zone, file string, failRemove bool, atExit func(claim lock.Holder)) (s *signalled, done <-chan struct{}, release func()) {
	t.Helper()
	isClaim := func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/zones/"+zone+"/metadata/")
	}
	var wrote sync.Once
	arrived, release := holdRequest(t, srv, isClaim, func(r *http.Request) (int, string, bool) {
		switch {
		case isClaim(r):
			wrote.Do(func() { writeThrough(t, srv, r) })
			return http.StatusUnprocessableEntity, `{"error": "the claim's answer was lost"}`, true
		case failRemove && r.Method == http.MethodDelete:
			return http.StatusUnprocessableEntity, `{"error": "the store failed the removal"}`, true
		}
		return 0, "", false
	})
	s, done = startInterruptible(t, "apply", file)
	s.atExit = func() {
		var claim lock.Holder
		for _, h := range lockEntries(t, srv, zone) {
			claim = h
		}
		atExit(claim)
	}
	select {
	case <-arrived:
	case <-done:
		t.Fatalf("site ended before it claimed the lock (exit %d):\n%s", <-s.code, s.err)
	}
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: interrupted:", done) {
		t.Fatalf("no message after the first interrupt:\n%s", s.err)
	}
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: waiting up to 1m0s for the requests taking tenant office1's apply lock", done) {
		t.Fatalf("the exit did not wait for the request taking the lock:\n%s", s.err)
	}
	return s, done, release
}

// writeThrough sends r, which the server's proxy holds, straight to the
// server.
func writeThrough(t *testing.T, srv *pdnstest.Server, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Error(err)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/api/v1/servers/"+srv.ServerID)
	if code, out, err := srv.Do(context.Background(), r.Method, path, body); err != nil || code >= 300 {
		t.Errorf("%s %s straight to the server: %d %v %s", r.Method, path, code, err, out)
	}
}

// TestSecondInterruptRemovesTheClaimOfAFailedRequest: the second
// Ctrl-C while apply takes its lock, whose request then fails after
// the claim was written, removes the claim (the run's own entry, by its
// ID) and names it at the exit, with what a request still on its way
// may leave. The exit named only unanswered requests, and left the
// claim without a word, to delay or refuse the next apply for its
// whole lease.
func TestSecondInterruptRemovesTheClaimOfAFailedRequest(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, time.Minute)
	const zone = "claim.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "claim.example.test", `www: A: ["192.0.2.1"]`)
	var left lock.Holder
	s, done, release := failTaking(t, srv, zone, file, false, func(claim lock.Holder) { left = claim })
	release()
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	<-done
	if left.ID != "" {
		t.Errorf("at the exit the zone held the claim %+v, want none\nstderr:\n%s", left, s.err)
	}
	for _, want := range []string{
		"site: a request taking tenant office1's apply lock failed (",
		"the claim's answer was lost",
		"site removed the entry it may have written (this run's: host ",
		"should a request of it that timed out still reach its store after that, the entry stays until its lease runs out at ",
		"site unlock office1 --ack GATE-LOCK-BREAK removes it",
	} {
		if !strings.Contains(s.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.err)
		}
	}
}

// TestSecondInterruptNamesTheClaimOfAFailedRequest: when removing that
// claim fails too, the exit names the entry it leaves (whose, until
// when) and the command that removes it.
func TestSecondInterruptNamesTheClaimOfAFailedRequest(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, time.Minute)
	const zone = "claim.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "claim.example.test", `www: A: ["192.0.2.1"]`)
	var claim lock.Holder
	s, done, release := failTaking(t, srv, zone, file, true, func(left lock.Holder) { claim = left })
	release()
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	<-done
	if claim.ID == "" {
		t.Fatalf("at the exit the zone held no claim, want the one the removal failed to remove\nstderr:\n%s", s.err)
	}
	for _, want := range []string{
		"site: a request taking tenant office1's apply lock failed (",
		"and removing the entry it may have written failed too (",
		"the store failed the removal",
		"that entry, if it was written (this run's: " + claim.String() + "), stays until its lease runs out at " + claim.Expires.UTC().Format(time.RFC3339),
		"site unlock office1 --ack GATE-LOCK-BREAK removes it",
	} {
		if !strings.Contains(s.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.err)
		}
	}
}

// TestSecondInterruptReleasesTheLockWithoutRetrying: after the second
// Ctrl-C, releasing the apply lock sends its request once: a release
// the server answers 503 is not tried again, for the user asked to stop
// sending (issue #27: interrupts mean it). It retried the release like
// any request, three tries and their waits inside the exit's bound.
func TestSecondInterruptReleasesTheLockWithoutRetrying(t *testing.T) {
	srv := pdnsEnv(t)
	exitWithin(t, time.Minute) // room for every retry it would send
	const zone = "release.example.test"
	srv.CreateZone(t, zone+".")
	file := lockedTenantFile(t, srv, zone, `www: A: ["192.0.2.7"]`)
	var releases atomic.Int32
	inPatch, release := holdRequest(t, srv, func(r *http.Request) bool {
		return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/zones/"+zone+".")
	}, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/metadata/X-SITE-LOCK-") {
			releases.Add(1)
			return http.StatusServiceUnavailable, `{"error": "busy"}`, true
		}
		return 0, "", false
	})
	s, done := startInterruptible(t, "apply", "--yes", file)
	var atExit int32
	s.atExit = func() { atExit = releases.Load() }
	select {
	case <-inPatch:
	case <-done:
		t.Fatalf("site ended before its PATCH (exit %d):\n%s", <-s.code, s.err)
	}
	s.sigs <- os.Interrupt
	if !s.err.waitFor("site: interrupted: finishing", done) {
		t.Fatalf("no message after the first interrupt:\n%s", s.err)
	}
	s.sigs <- os.Interrupt
	if !s.err.waitFor("before releasing tenant office1's apply lock", done) {
		t.Fatalf("no word of the wait for the PATCH:\n%s", s.err)
	}
	release()
	if code := <-s.exits; code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	<-done
	if atExit != 1 {
		t.Errorf("the release was sent %d times before the exit, want once (no retry after an interrupt)\nstderr:\n%s", atExit, s.err)
	}
}
