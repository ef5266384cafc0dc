//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"libvirt.org/go/libvirt"
)

// A libvirt call has no timeout and nothing can cancel it: a daemon
// that stops answering (stopped with SIGSTOP, a hung host, a stalled SSH
// tunnel) would hold a run forever. Two things bound that wait:
//
//   - keepalive, on every open connection: libvirt probes a daemon that
//     has said nothing for KeepAlive.Interval, and closes the connection
//     when KeepAlive.Count probes in a row go unanswered, which fails
//     the calls waiting on it. It bounds the daemon's silence, not a
//     call's length: a daemon busy with a long call (an upload, a
//     guest's QEMU slow to answer) still answers the probes, so slow
//     work is never cut short.
//   - OpenTimeout, on opening, which keepalive cannot cover (it starts
//     once the connection is open).
//
// A host that went silent either way is given up on for the rest of the
// run (SilentHostError): every later step on it fails at once with the
// same error, rather than wait out another open.

// KeepAlive is libvirt's keepalive for a connection
// (virConnectSetKeepAlive): after Interval without a word from the
// daemon the client sends a probe, and when Count probes in a row go
// unanswered it closes the connection. A daemon is thus given up on
// after Interval × (Count+1) of silence.
type KeepAlive struct {
	Interval time.Duration // rounded up to whole seconds: libvirt counts in seconds
	Count    uint
}

// DefaultKeepAlive gives a daemon up after 20 s of silence: one probe
// after 5 s without a word, and two more 5 s apart. A daemon that runs
// answers a probe within milliseconds whatever its calls are doing, as
// its event loop answers them, not its workers.
var DefaultKeepAlive = KeepAlive{Interval: 5 * time.Second, Count: 3}

// DefaultOpenTimeout bounds opening a connection: ample for a local
// socket (milliseconds) or an SSH transport (a few seconds), short
// enough that a CI job fails with a reason well before its own timeout.
const DefaultOpenTimeout = 30 * time.Second

// effective returns ka with zero fields set from DefaultKeepAlive and
// Interval rounded up to whole seconds (a zero Interval would turn
// keepalive off).
func (ka KeepAlive) effective() KeepAlive {
	if ka.Interval <= 0 {
		ka.Interval = DefaultKeepAlive.Interval
	}
	if ka.Count == 0 {
		ka.Count = DefaultKeepAlive.Count
	}
	ka.Interval = ka.Interval.Round(time.Second)
	if ka.Interval < time.Second {
		ka.Interval = time.Second
	}
	return ka
}

// silence is how long a daemon says nothing before it is given up on.
func (ka KeepAlive) silence() time.Duration { return ka.Interval * time.Duration(ka.Count+1) }

func (d *Driver) keepAlive() KeepAlive { return d.opts.KeepAlive.effective() }

func (d *Driver) openTimeout() time.Duration {
	if d.opts.OpenTimeout > 0 {
		return d.opts.OpenTimeout
	}
	return DefaultOpenTimeout
}

// SilentHostError says that a host's daemon stopped answering and that
// site gave up on it for the rest of the run: whom, what it was asked,
// for how long, and what to check.
type SilentHostError struct {
	Server string // the host as the run names it (Driver.server)
	URI    string // the URI opened, for the check to run
	// Calls is what was waiting for an answer: "NewConnect", or the
	// calls in flight when keepalive gave up ("" when none was).
	Calls  string
	Waited time.Duration // how long the oldest of Calls had waited
	// KeepAlive is the keepalive whose probes went unanswered; nil when
	// the open timed out.
	KeepAlive *KeepAlive
}

func (e *SilentHostError) Error() string {
	check := fmt.Sprintf("check that the libvirt daemon there runs and is not stopped or hung (virsh -c %s version answers at once from a daemon that is well), and the network or SSH tunnel to the host", e.URI)
	if e.KeepAlive == nil {
		return fmt.Sprintf("%s did not answer %s within %s, so site gave up on this host for the run (an open cannot be cancelled: it is left to finish on its own, and closed if it does); %s",
			e.Server, e.Calls, e.Waited, check)
	}
	during := "between two calls"
	if e.Calls != "" {
		during = fmt.Sprintf("while %s waited for it (%s)", e.Calls, e.Waited.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("%s stopped answering %s: %s went unanswered (%s without a word), so site gave up on this host for the run; %s; once it answers, site diff shows what, if anything, the calls in flight changed",
		e.Server, during, e.KeepAlive.probes(), e.KeepAlive.silence(), check)
}

// probes says what keepalive sent before it gave up.
func (ka KeepAlive) probes() string {
	if ka.Count == 1 {
		return fmt.Sprintf("1 keepalive probe, sent after %s of silence,", ka.Interval)
	}
	return fmt.Sprintf("%d keepalive probes, the first after %s of silence and then %s apart,", ka.Count, ka.Interval, ka.Interval)
}

var (
	eventLoopOnce sync.Once
	eventLoopErr  error
)

// startEventLoop registers libvirt's default event loop and runs it for
// the rest of the process. Keepalive needs it: between calls libvirt
// sends its probes, and answers the daemon's, from that loop (during a
// call the calling thread does). A connection opened before it is
// registered refuses keepalive ("the caller doesn't support keepalive
// protocol"), so conn calls it before every open. It loads libvirt, so
// only after Available: site vet runs where libvirt is absent.
func startEventLoop() error {
	eventLoopOnce.Do(func() {
		if err := libvirt.EventRegisterDefaultImpl(); err != nil {
			eventLoopErr = fmt.Errorf("register libvirt's event loop, which keepalive needs: %w", err)
			return
		}
		go runEventLoop()
	})
	return eventLoopErr
}

func runEventLoop() {
	for {
		if err := libvirt.EventRunDefaultImpl(); err != nil {
			// It fails only without a registered loop, which
			// startEventLoop rules out; never spin on it anyway.
			time.Sleep(time.Second)
		}
	}
}

// opened is what a NewConnect ended with.
type opened struct {
	c   *libvirt.Connect
	err error
}

// openWithin opens uri, waiting at most timeout; ok is false when the
// open did not end in time. NewConnect is a cgo call that nothing can
// cancel, and against a daemon that accepts the connection but never
// answers it never returns. So it runs on a goroutine of its own, and
// past the timeout it is left behind and its connection never used.
// That is safe: the goroutine holds the only reference to what it
// opens, nothing else waits for it or shares it, and if the open ever
// completes the goroutine closes the connection itself. If it never
// does, it costs one blocked thread until the process exits, which
// does not wait for it. The caller gives the host up for the run, so
// no second open piles up behind the first.
func openWithin(uri string, timeout time.Duration) (o opened, ok bool) {
	result := make(chan opened) // unbuffered: a send succeeds only while openWithin waits
	abandoned := make(chan struct{})
	go func() {
		c, err := libvirt.NewConnect(uri)
		select {
		case result <- opened{c, err}:
		case <-abandoned:
			if c != nil {
				_, _ = c.Close()
			}
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o := <-result:
		return o, true
	case <-timer.C:
		close(abandoned)
		return opened{}, false
	}
}

// setKeepAlive turns libvirt's keepalive on for c. A driver that runs
// inside this process (test:///) has no daemon to go silent and does
// not support it. libvirt returns 1 for a daemon too old to speak
// keepalive (before 0.9.8), which the binding reports as an error
// without a code: such a connection goes on without it.
func setKeepAlive(c *libvirt.Connect, ka KeepAlive) error {
	err := c.SetKeepAlive(int(ka.Interval/time.Second), ka.Count)
	var lerr libvirt.Error
	if err == nil || errors.As(err, &lerr) && (lerr.Code == libvirt.ERR_NO_SUPPORT || lerr.Code == libvirt.ERR_OK) {
		return nil
	}
	return err
}

// watchKeepAlive gives host up for the run when keepalive closes c.
// The callback runs on whichever thread libvirt closes the connection
// on (the call that saw the probes go unanswered, before that call
// returns when it is the only one in flight; or the event loop), and
// also when Close closes c under d.mu: so it takes no lock but
// silentMu, and only for a keepalive close.
func (d *Driver) watchKeepAlive(c *libvirt.Connect, host, uri string) error {
	s, server, ka := d.shared, d.server(host), d.keepAlive()
	return c.RegisterCloseCallback(func(_ *libvirt.Connect, reason libvirt.ConnectCloseReason) {
		if reason != libvirt.CONNECT_CLOSE_REASON_KEEPALIVE {
			return
		}
		calls, waited := s.inFlight(server)
		s.giveUp(host, &SilentHostError{Server: server, URI: uri, Calls: calls, Waited: waited, KeepAlive: &ka})
	})
}

// giveUp records that host went silent, unless it was already given
// up on, and returns the error the run reports for it from now on: the
// first, which names the call that met the silence first.
func (s *shared) giveUp(host string, err *SilentHostError) error {
	s.silentMu.Lock()
	defer s.silentMu.Unlock()
	if first, ok := s.silent[host]; ok {
		return first
	}
	s.silent[host] = err
	return err
}

// givenUp returns why host was given up on for the run, or nil.
func (s *shared) givenUp(host string) error {
	s.silentMu.Lock()
	defer s.silentMu.Unlock()
	if err, ok := s.silent[host]; ok {
		return err
	}
	return nil
}

// inFlightCall is a call to a server that waits for its answer.
type inFlightCall struct {
	calls string
	since time.Time
}

// track notes calls to server as in flight until the returned func is
// called, so that a keepalive close can say what it cut off.
func (s *shared) track(server, calls string) (untrack func()) {
	c := &inFlightCall{calls: calls, since: time.Now()}
	s.silentMu.Lock()
	if s.inflight[server] == nil {
		s.inflight[server] = map[*inFlightCall]bool{}
	}
	s.inflight[server][c] = true
	s.silentMu.Unlock()
	return func() {
		s.silentMu.Lock()
		delete(s.inflight[server], c)
		s.silentMu.Unlock()
	}
}

// inFlight returns the calls to server that wait for an answer, each
// named once and in order, and how long the oldest has waited.
func (s *shared) inFlight(server string) (calls string, waited time.Duration) {
	s.silentMu.Lock()
	defer s.silentMu.Unlock()
	names := map[string]bool{}
	var oldest time.Time
	for c := range s.inflight[server] {
		names[c.calls] = true
		if oldest.IsZero() || c.since.Before(oldest) {
			oldest = c.since
		}
	}
	if len(names) == 0 {
		return "", 0
	}
	return strings.Join(slices.Sorted(maps.Keys(names)), "; "), time.Since(oldest)
}
