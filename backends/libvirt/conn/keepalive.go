//go:build cgo && libvirt_dlopen

package conn

import (
	"fmt"
	"time"
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
//   - OpenWithin's timeout, on opening, which keepalive cannot cover (it starts
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

// Effective returns ka with zero fields set from DefaultKeepAlive and
// Interval rounded up to whole seconds (a zero Interval would turn
// keepalive off).
func (ka KeepAlive) Effective() KeepAlive {
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

// Silence is how long a daemon says nothing before it is given up on.
func (ka KeepAlive) Silence() time.Duration { return ka.Interval * time.Duration(ka.Count+1) }

// SilentHostError says that a host's daemon stopped answering and that
// site gave up on it for the rest of the run: whom, what it was asked,
// for how long, and what to check.
type SilentHostError struct {
	Server string // the host as the run names it (the Driver's server)
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
		e.Server, during, e.KeepAlive.probes(), e.KeepAlive.Silence(), check)
}

// probes says what keepalive sent before it gave up.
func (ka KeepAlive) probes() string {
	if ka.Count == 1 {
		return fmt.Sprintf("1 keepalive probe, sent after %s of silence,", ka.Interval)
	}
	return fmt.Sprintf("%d keepalive probes, the first after %s of silence and then %s apart,", ka.Count, ka.Interval, ka.Interval)
}
