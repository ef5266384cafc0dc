//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// procListAllDomains is REMOTE_PROC_CONNECT_LIST_ALL_DOMAINS, the call
// an observation makes after GetCapabilities.
const procListAllDomains = 273

// hangBound is how long a test waits for a run against a stopped daemon
// to end before it fails: far above the short keepalive and open
// timeouts the tests set, so reaching it means the run would have hung.
const hangBound = 2 * time.Minute

// observeEnds observes host through d in the background and returns the
// error the observation ends with, failing the test if it still waits
// after hangBound. A stopped daemon is continued when the test ends,
// so a run that hung ends then too.
func observeEnds(t *testing.T, d *Driver, host string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := d.observe(host)
		done <- err
	}()
	return endsWithin(t, done, "observing "+host)
}

// endsWithin returns what done receives, failing the test if nothing
// came within hangBound.
func endsWithin(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(hangBound):
		t.Fatalf("%s still waits after %s: a stopped daemon hangs the run", what, hangBound)
		return nil
	}
}

// wantAll fails the test unless err's message holds every one of want.
func wantAll(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error from a daemon that does not answer")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

// TestStoppedDaemonFailsTheOpen: a daemon stopped with SIGSTOP accepts
// the connection (the kernel queues it) and never answers the open,
// which keepalive cannot cover. The open is given up on after
// OpenTimeout with an error naming the host, the call, the time and
// what to check; the host is then given up on for the run, so the next
// step fails at once rather than wait again. Before, the run hung.
func TestStoppedDaemonFailsTheOpen(t *testing.T) {
	s := libvirttest.StartSession(t)
	d := New(Options{URIMap: map[string]string{sessionHost: s.URI}, OpenTimeout: time.Second})
	t.Cleanup(func() { _ = d.Close() })
	s.Freeze(t) // after d's cleanup, so that the daemon runs again before d closes
	err := observeEnds(t, d, sessionHost)
	wantAll(t, err,
		"libvirt host "+sessionHost+" (as "+s.URI+") did not answer NewConnect within 1s",
		"virsh -c "+s.URI+" version",
		"gave up on this host for the run")
	if conn.Classify(err) != "" {
		t.Errorf("conn.Classify = %q, want none: a host given up on is not retried", conn.Classify(err))
	}

	calls := d.Calls()
	d.Forget(sessionHost)
	again := observeEnds(t, d, sessionHost)
	if again == nil || again.Error() != err.Error() {
		t.Errorf("the next observation ended with %v, want the first error again", again)
	}
	if got := d.Calls() - calls; got != 0 {
		t.Errorf("the next observation made %d calls, want none: the host was given up on", got)
	}
}

// TestDaemonStoppedDuringACallFailsIt: the daemon is stopped while
// ListAllDomains is in flight on an open connection. libvirt's
// keepalive closes the connection once its probes go unanswered, which
// fails the call, and the error says which host stopped answering,
// during which call, and what to check. Before, the call waited
// forever.
func TestDaemonStoppedDuringACallFailsIt(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="), procListAllDomains)
	d := New(Options{URIMap: map[string]string{sessionHost: uri}, KeepAlive: KeepAlive{Interval: time.Second, Count: 1}})
	t.Cleanup(func() { _ = d.Close() })
	done := make(chan error, 1)
	go func() {
		_, err := d.observe(sessionHost)
		done <- err
	}()
	select {
	case h := <-held:
		s.Freeze(t)
		close(h.release) // the call reaches a daemon that no longer answers
	case err := <-done:
		t.Fatalf("observe ended (%v) before it sent ListAllDomains", err)
	}
	err := endsWithin(t, done, "observing "+sessionHost)
	wantAll(t, err,
		"libvirt host "+sessionHost+" (as "+uri+") stopped answering",
		"while ListAllDomains waited for it",
		"1 keepalive probe, sent after 1s of silence, went unanswered (2s without a word)",
		"virsh -c "+uri+" version",
		"gave up on this host for the run")
}

// TestAliveDaemonIsWaitedFor: keepalive bounds the daemon's silence,
// not a call's length. A call the daemon cannot finish yet (a shutdown
// request to a guest whose QEMU is stopped, so its monitor does not
// answer) waits past the keepalive window while the daemon itself
// answers the probes, and succeeds once QEMU runs again. A timeout on
// each call would have failed it.
func TestAliveDaemonIsWaitedFor(t *testing.T) {
	s := libvirttest.StartSession(t)
	ka := KeepAlive{Interval: time.Second, Count: 1} // the daemon must answer within 2s
	outlived := make(chan struct{})
	run := runstate.Start(&backends.Run{SlowAfter: 3 * ka.Interval, Slow: func(a backends.Awaited, _ time.Duration) {
		if a.Request == "Shutdown of domain alive" {
			select {
			case <-outlived:
			default:
				close(outlived)
			}
		}
	}})
	d := New(Options{URIMap: map[string]string{sessionHost: s.URI}, KeepAlive: ka, Run: run})
	t.Cleanup(func() { _ = d.Close() })
	c, err := d.Conn(sessionHost)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := c.DomainCreateXML(`<domain type="qemu"><name>alive</name><memory unit="MiB">64</memory><vcpu>1</vcpu>`+
		`<os><type arch="x86_64" machine="pc">hvm</type></os><devices><emulator>/usr/bin/qemu-system-x86_64</emulator>`+
		`<memballoon model="none"/></devices></domain>`, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dom.Free()
	t.Cleanup(func() { _ = dom.Destroy() })
	qemu := s.QEMUPID("alive")
	if qemu == 0 {
		t.Fatal("no QEMU process for domain alive")
	}
	if err := syscall.Kill(qemu, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	thaw := func() { _ = syscall.Kill(qemu, syscall.SIGCONT) }
	t.Cleanup(thaw)

	done := make(chan error, 1)
	go func() {
		finished := d.Calling(d.Server(sessionHost), "Shutdown of domain alive")
		err := dom.Shutdown()
		finished()
		done <- err
	}()
	select {
	case <-outlived:
	case err := <-done:
		t.Fatalf("Shutdown ended (%v) while QEMU was stopped, before it had waited %s", err, run.SlowAfter)
	}
	thaw()
	if err := endsWithin(t, done, "Shutdown of domain alive"); err != nil {
		t.Errorf("Shutdown of a guest the live daemon was slow to reach failed: %v", err)
	}
	if alive, err := c.IsAlive(); err != nil || !alive {
		t.Errorf("connection alive = %v (%v) after a slow call to a live daemon, want true", alive, err)
	}
}
