//go:build cgo && libvirt_dlopen

package libvirt

import (
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/conn"
)

// KeepAlive is libvirt's keepalive for a connection (conn.KeepAlive),
// named here for Options.
type KeepAlive = conn.KeepAlive

func (d *Driver) keepAlive() KeepAlive { return d.opts.KeepAlive.Effective() }

func (d *Driver) openTimeout() time.Duration {
	if d.opts.OpenTimeout > 0 {
		return d.opts.OpenTimeout
	}
	return conn.DefaultOpenTimeout
}

// watchKeepAlive gives host up for the run when keepalive closes c.
// The callback runs on whichever thread libvirt closes the connection
// on (the call that saw the probes go unanswered, before that call
// returns when it is the only one in flight; or the event loop), and
// also when Close closes c under d.mu: so it takes no lock but
// conn.Silence's, and only for a keepalive close.
func (d *Driver) watchKeepAlive(c *libvirt.Connect, host, uri string) error {
	s, server, ka := d.shared, d.server(host), d.keepAlive()
	return c.RegisterCloseCallback(func(_ *libvirt.Connect, reason libvirt.ConnectCloseReason) {
		if reason != libvirt.CONNECT_CLOSE_REASON_KEEPALIVE {
			return
		}
		calls, waited := s.silence.InFlight(server)
		s.silence.GiveUp(host, &conn.SilentHostError{Server: server, URI: uri, Calls: calls, Waited: waited, KeepAlive: &ka})
	})
}
