//go:build cgo && libvirt_dlopen

package hosts

import (
	"fmt"
	"sync"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/conn"
)

// URIMapEnv names the environment variable that rewrites host URIs
// (libvirt.URIMapEnv), named in the error of a mapped host's open.
const URIMapEnv = "SITE_LIBVIRT_URI_MAP"

// ShutdownTimeoutEnv names the environment variable that overrides
// Options.ShutdownTimeout (libvirt.ShutdownTimeoutEnv), named in the
// plans of the stops that wait for it.
const ShutdownTimeoutEnv = "SITE_LIBVIRT_SHUTDOWN_TIMEOUT"

// Conn returns the open connection to host, opening it on first use,
// and again when the daemon dropped it (a restart). A host whose daemon
// stopped answering was given up on for the run: its error comes back
// at once.
func (s *Set) Conn(host string) (*libvirt.Connect, error) {
	if err := s.silence.GivenUp(host); err != nil {
		return nil, err
	}
	if c := s.aliveConn(host); c != nil {
		return c, nil
	}
	lock := s.openLock(host)
	lock.Lock()
	defer lock.Unlock()
	// Another step may have opened the host, or given up on it, while
	// this one waited for the lock.
	if err := s.silence.GivenUp(host); err != nil {
		return nil, err
	}
	if c := s.aliveConn(host); c != nil {
		return c, nil
	}
	c, err := s.open(host)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conns[host] = c
	s.mu.Unlock()
	return c, nil
}

// aliveConn returns the open connection to host, or nil when there is
// none or it died, which it then closes and forgets.
func (s *Set) aliveConn(host string) *libvirt.Connect {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.conns[host]
	if !ok {
		return nil
	}
	// A daemon restart kills the connection; open a new one then.
	s.Call()
	if alive, err := c.IsAlive(); err == nil && alive {
		return c
	}
	_, _ = c.Close()
	delete(s.conns, host)
	return nil
}

// openLock returns the lock host is opened under.
func (s *Set) openLock(host string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.opening[host]
	if l == nil {
		l = &sync.Mutex{}
		s.opening[host] = l
	}
	return l
}

// open opens a connection to host within the open timeout, with
// keepalive on. A daemon that does not answer the open is given up on
// for the run (conn.OpenWithin says why that is safe).
func (s *Set) open(host string) (*libvirt.Connect, error) {
	if s.OptsErr != nil {
		return nil, s.OptsErr
	}
	if err := Available(); err != nil {
		return nil, err
	}
	if err := conn.StartEventLoop(); err != nil {
		return nil, err
	}
	uri := host
	if m, ok := s.Opts.URIMap[host]; ok {
		uri = m
	}
	timeout := s.openTimeout()
	done := s.Calling(s.Server(host), "NewConnect")
	o, ok := conn.OpenWithin(uri, timeout)
	done()
	if !ok {
		return nil, s.silence.GiveUp(host, &conn.SilentHostError{Server: s.Server(host), URI: uri, Calls: "NewConnect", Waited: timeout})
	}
	c, err := o.Conn, o.Err
	if err != nil {
		via := ""
		if uri != host {
			via = fmt.Sprintf(" (as %s, from %s)", uri, URIMapEnv)
		}
		return nil, fmt.Errorf("connect to libvirt host %s%s: %w; check that the daemon runs and that this user may use its socket", host, via, conn.Plain(err))
	}
	if err := conn.SetKeepAlive(c, s.keepAlive()); err != nil {
		_, _ = c.Close()
		return nil, fmt.Errorf("turn on keepalive for %s, without which a daemon that stops answering would hang the run: %w", s.Server(host), conn.Plain(err))
	}
	if err := s.watchKeepAlive(c, host, uri); err != nil {
		_, _ = c.Close()
		return nil, fmt.Errorf("watch the connection to %s for a keepalive close: %w", s.Server(host), conn.Plain(err))
	}
	return c, nil
}

func (s *Set) keepAlive() conn.KeepAlive { return s.Opts.KeepAlive.Effective() }

func (s *Set) openTimeout() time.Duration {
	if s.Opts.OpenTimeout > 0 {
		return s.Opts.OpenTimeout
	}
	return conn.DefaultOpenTimeout
}

// watchKeepAlive gives host up for the run when keepalive closes c.
// The callback runs on whichever thread libvirt closes the connection
// on (the call that saw the probes go unanswered, before that call
// returns when it is the only one in flight; or the event loop), and
// also when Close closes c under s.mu: so it takes no lock but
// conn.Silence's, and only for a keepalive close.
func (s *Set) watchKeepAlive(c *libvirt.Connect, host, uri string) error {
	sh, server, ka := s.shared, s.Server(host), s.keepAlive()
	return c.RegisterCloseCallback(func(_ *libvirt.Connect, reason libvirt.ConnectCloseReason) {
		if reason != libvirt.CONNECT_CLOSE_REASON_KEEPALIVE {
			return
		}
		calls, waited := sh.silence.InFlight(server)
		sh.silence.GiveUp(host, &conn.SilentHostError{Server: server, URI: uri, Calls: calls, Waited: waited, KeepAlive: &ka})
	})
}
