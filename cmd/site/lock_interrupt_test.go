package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns"
)

// These tests run site apply as a process of its own (siteProcess) and
// send it real signals, as an operator's Ctrl-C (or kill -INT) does:
// what happens to the tenant's apply lock then is the point.

// siteChild is site running as a process, its stderr watched.
type siteChild struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	err    *watchBuffer
	done   chan struct{} // closed when it has exited
	code   int
	waited error
}

// startSite starts site with args; with sigintIgnored it starts with
// SIGINT ignored, as a shell's background job does.
func startSite(t *testing.T, sigintIgnored bool, args ...string) *siteChild {
	t.Helper()
	path := siteProcess(t)
	c := &siteChild{err: &watchBuffer{changed: make(chan struct{})}, done: make(chan struct{})}
	if sigintIgnored {
		c.cmd = exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`, path}, args...)...)
	} else {
		c.cmd = exec.Command(path, args...)
	}
	c.cmd.Stdout, c.cmd.Stderr = &c.out, c.err
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		c.waited = c.cmd.Wait()
		c.code = c.cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// waitFor returns once site wrote s on stderr; it fails the test when
// site exited without writing it or took longer than within.
func (c *siteChild) waitFor(t *testing.T, s string, within time.Duration) {
	t.Helper()
	gone := make(chan struct{})
	timer := time.AfterFunc(within, func() { close(gone) })
	defer timer.Stop()
	stop := make(chan struct{})
	go func() {
		select {
		case <-c.done:
		case <-gone:
		}
		close(stop)
	}()
	if !c.err.waitFor(s, stop) {
		t.Fatalf("site did not write %q within %s (exited: %v)\nstdout:\n%s\nstderr:\n%s", s, within, c.exited(), &c.out, c.err)
	}
}

func (c *siteChild) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exit waits up to within for site to exit and returns its code and how
// long it took.
func (c *siteChild) exit(t *testing.T, within time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-c.done:
	case <-time.After(within):
		t.Fatalf("site has not exited %s after the signal\nstdout:\n%s\nstderr:\n%s", within, &c.out, c.err)
	}
	var ee *exec.ExitError
	if c.waited != nil && !errors.As(c.waited, &ee) {
		t.Fatal(c.waited)
	}
	return c.code, time.Since(start)
}

// TestSecondInterruptDoesNotWaitForAHungServer: when releasing a lock
// hangs (the server holds the DELETE of shop's entry, a tenant with
// nothing in flight), the second Ctrl-C still exits within about two
// seconds, and says the lock stays until its lease runs out or site
// unlock breaks it.
func TestSecondInterruptDoesNotWaitForAHungServer(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "a.test.")
	srv.CreateZone(t, "b.test.")
	// Both tenants' locks in b.test.'s metadata (site.cue locks): office1's
	// is kept (its PATCH in flight), so the hung removals are shop's.
	dir := lockedMultiTenant(t, srv, map[string][]zoneSpec{
		"office1": {{"a.test", `www: A: ["192.0.2.1"]`, ""}},
		"shop":    {{"b.test", `www: A: ["192.0.2.2"]`, ""}},
	}, "b.test.")
	// shop is converged: its step writes nothing, so it is never in flight.
	if code, out, errOut := siteRun(t, srv, "apply", filepath.Join(dir, "shop.cue")); code != exitOK {
		t.Fatalf("converging shop: exit %d\n%s\n%s", code, out, errOut)
	}
	var hang atomic.Bool
	unhang := make(chan struct{})
	t.Cleanup(func() { close(unhang) }) // before the server's own cleanup, which waits for it
	arrived, release := holdRequest(t, srv, func(r *http.Request) bool {
		return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/zones/a.test.")
	}, func(r *http.Request) (int, string, bool) {
		if hang.Load() && r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/zones/b.test./metadata/") {
			<-unhang
		}
		return 0, "", false
	})
	c := startSite(t, false, "apply", dir)
	select {
	case <-arrived:
	case <-c.done:
		t.Fatalf("site exited before its PATCH: exit %d\n%s\n%s", c.code, &c.out, c.err)
	}
	hang.Store(true)
	c.cmd.Process.Signal(os.Interrupt)
	c.waitFor(t, "site: interrupted: finishing dns/a.test.", 10*time.Second)
	c.cmd.Process.Signal(os.Interrupt)
	code, took := c.exit(t, 10*time.Second)
	release()
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, c.err)
	}
	if took > 6*time.Second {
		t.Errorf("took %s to exit with the server hung, want about 2s", took)
	}
	held := lockEntriesOf(t, srv, "b.test.", "shop")
	if len(held) != 1 {
		t.Fatalf("shop's lock entries %+v, want the one the hung server kept", held)
	}
	var until string
	for _, h := range held {
		until = h.Expires.UTC().Format(time.RFC3339)
	}
	for _, want := range []string{
		"site: the apply lock of tenant shop stays held: releasing it did not finish within 2s",
		"until its lease runs out at " + until,
		"or site unlock shop --ack GATE-LOCK-BREAK",
	} {
		if !strings.Contains(c.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, c.err)
		}
	}
}

// TestLockWaitSaysWhoAndStopsOnInterrupt: apply --lock-timeout says once
// whom it waits for and how long, and Ctrl-C (kill -INT) ends the wait at
// once, having changed nothing, exit 1; so too when site was started
// with SIGINT ignored (a shell's background job), where it did nothing.
func TestLockWaitSaysWhoAndStopsOnInterrupt(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	other := lock.Holder{ID: "07E4E2000000000B", Tenant: "office1", Host: "runner-b", PID: 7, Start: time.Now().Add(-time.Minute),
		Command: "site apply tenants/office1.cue", Expires: time.Now().Add(time.Hour), State: lock.Held}
	entry, _ := json.Marshal(other)
	body, _ := json.Marshal(map[string]any{"metadata": []string{string(entry)}})
	if code, b, err := srv.Do(context.Background(), "PUT", "/zones/"+zone+"/metadata/"+powerdns.LockKindPrefix+other.ID, body); err != nil || code != http.StatusOK {
		t.Fatalf("PUT the other run's entry: %d %v %s", code, err, b)
	}
	for _, ignored := range []bool{false, true} {
		c := startSite(t, ignored, "apply", "--lock-timeout", "90s", file)
		waiting := "site: tenant office1 is being applied by another run (host runner-b, pid 7, started " + other.Start.UTC().Format(time.RFC3339) +
			`, command "site apply tenants/office1.cue"`
		c.waitFor(t, waiting, 10*time.Second)
		c.waitFor(t, "waiting up to 1m30s (--lock-timeout) for it to finish", time.Second)
		time.Sleep(300 * time.Millisecond) // into a pause between tries
		c.cmd.Process.Signal(os.Interrupt)
		code, took := c.exit(t, 5*time.Second)
		if code != exitError || took > 4*time.Second {
			t.Errorf("SIGINT ignored %v: exit %d after %s, want 1 at once\nstderr:\n%s", ignored, code, took, c.err)
		}
		if want := "site: apply was interrupted while waiting for tenant office1's apply lock: nothing was changed"; !strings.Contains(c.err.String(), want) {
			t.Errorf("SIGINT ignored %v: stderr lacks %q:\n%s", ignored, want, c.err)
		}
		if n := strings.Count(c.err.String(), "is being applied by another run"); n != 1 {
			t.Errorf("SIGINT ignored %v: the wait was said %d times, want once:\n%s", ignored, n, c.err)
		}
		if e := lockEntries(t, srv, zone); len(e) != 1 {
			t.Errorf("SIGINT ignored %v: lock entries %+v, want the other run's alone", ignored, e)
		}
	}
	if c := srv.Requests(zone); c.PATCH != 0 {
		t.Errorf("the zone was written: %+v", c)
	}
}

// hungLibvirt is a libvirt socket that accepts connections and never
// answers, as a libvirtd stopped with SIGSTOP does; it returns the URI
// and a channel that gets a value at each connection.
func hungLibvirt(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	connected := make(chan struct{}, 16)
	sock := filepath.Join(t.TempDir(), "libvirt-sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
			select {
			case connected <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return "qemu+unix:///session?socket=" + sock, connected
}

// TestInterruptStopsListingAHungHost: diff and apply list the domains a
// tenant no longer declares on its hosts before anything else; against
// a host that never answers, the first Ctrl-C names that listing and
// the libvirt call it waits on, stops it (it only reads) and the run
// exits 1 within a few seconds, having changed nothing. (They hung,
// silent, until a second signal killed them; then the message did not
// say which host held them.)
func TestInterruptStopsListingAHungHost(t *testing.T) {
	dir := t.TempDir()
	uri, connected := hungLibvirt(t)
	site := fmt.Sprintf("package site\n\nhosts: h: uri: %q\ntenants: lab: {domains: [\"lab.example.test\"], hosts: [\"h\"]}\n", uri)
	tenant := `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: tiny: {host: "h", autostart: false, running: true, vcpus: 1, memory: "64MiB"}
}
`
	for name, src := range map[string]string{"site.cue": site, "lab.cue": tenant} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, command := range []string{"diff", "apply"} {
		t.Run(command, func(t *testing.T) {
			c := startSite(t, false, command, "--config", filepath.Join(dir, "site.cue"), filepath.Join(dir, "lab.cue"))
			select { // into the listing, which never ends
			case <-connected:
			case <-c.done:
				t.Fatalf("site exited before it reached the host: exit %d\n%s\n%s", c.code, &c.out, c.err)
			}
			c.cmd.Process.Signal(os.Interrupt)
			c.waitFor(t, "stopping the observation of what the tenants no longer declare on their hosts, which was waiting for libvirt host "+uri+
				" to answer NewConnect (it only reads: nothing was changed)", 5*time.Second)
			code, _ := c.exit(t, 10*time.Second)
			if code != exitError {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitError, c.err)
			}
		})
	}
}

// TestInterruptStopsReadingTheLock: apply reads a tenant's lock entries
// before it takes the lock; against a server that holds that read (a
// PowerDNS stopped with SIGSTOP), the first Ctrl-C ends the read, which
// changes nothing, and apply exits 1 saying so. It waited for the read,
// up to three tries of a minute each, silent after "interrupted".
func TestInterruptStopsReadingTheLock(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	arrived, held := make(chan struct{}), make(chan struct{})
	var once, released sync.Once
	release := func() { released.Do(func() { close(held) }) }
	t.Cleanup(release) // the server's proxy waits for the request it holds
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone+"/metadata") {
			once.Do(func() {
				close(arrived)
				<-held
			})
		}
		return 0, "", false
	})
	c := startSite(t, false, "apply", file)
	select {
	case <-arrived:
	case <-c.done:
		t.Fatalf("site exited before reading its lock: exit %d\n%s\n%s", c.code, &c.out, c.err)
	}
	c.cmd.Process.Signal(os.Interrupt)
	code, _ := c.exit(t, 20*time.Second)
	release()
	if code != exitError {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitError, c.err)
	}
	if want := "site: apply was interrupted while reading tenant office1's apply lock: nothing was changed"; !strings.Contains(c.err.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, c.err)
	}
	if e := lockEntries(t, srv, zone); len(e) != 0 {
		t.Errorf("lock entries %+v, want none", e)
	}
	if c := srv.Requests(zone); c.PATCH != 0 {
		t.Errorf("the zone was written: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(file), ".office1.lock")); err == nil {
		t.Errorf("a lock file was left beside the spec")
	}
}
