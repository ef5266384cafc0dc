//go:build cgo && libvirt_dlopen

package conn

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"libvirt.org/go/libvirt"
)

var (
	eventLoopOnce sync.Once
	eventLoopErr  error
)

// StartEventLoop registers libvirt's default event loop and runs it for
// the rest of the process. Keepalive needs it: between calls libvirt
// sends its probes, and answers the daemon's, from that loop (during a
// call the calling thread does). A connection opened before it is
// registered refuses keepalive ("the caller doesn't support keepalive
// protocol"), so the driver calls it before every open. It loads libvirt, so
// only after Available: site vet runs where libvirt is absent.
func StartEventLoop() error {
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
			// StartEventLoop rules out; never spin on it anyway.
			time.Sleep(time.Second)
		}
	}
}

// Opened is what a NewConnect ended with.
type Opened struct {
	Conn *libvirt.Connect
	Err  error
}

// OpenWithin opens uri, waiting at most timeout; ok is false when the
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
func OpenWithin(uri string, timeout time.Duration) (o Opened, ok bool) {
	result := make(chan Opened) // unbuffered: a send succeeds only while OpenWithin waits
	abandoned := make(chan struct{})
	go func() {
		c, err := libvirt.NewConnect(uri)
		select {
		case result <- Opened{c, err}:
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
		return Opened{}, false
	}
}

// SetKeepAlive turns libvirt's keepalive on for c. A driver that runs
// inside this process (test:///) has no daemon to go silent and does
// not support it. libvirt returns 1 for a daemon too old to speak
// keepalive (before 0.9.8), which the binding reports as an error
// without a code: such a connection goes on without it.
func SetKeepAlive(c *libvirt.Connect, ka KeepAlive) error {
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
