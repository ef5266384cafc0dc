//go:build cgo && libvirt_dlopen

package hosts

import (
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
)

// Options configure a run's hosts (and the libvirt Driver, whose
// Options they are).
type Options struct {
	// URIMap rewrites a spec's host URI to the URI to open (see
	// libvirt.URIMapEnv). Hosts not in the map are opened as written.
	URIMap map[string]string
	// ShutdownTimeout bounds the wait for a guest to shut down cleanly
	// before a gated stop or restart forces it off. Zero forces at once.
	ShutdownTimeout time.Duration
	// DomainType is the <domain type> of new domains, "kvm" or "qemu"
	// (TCG); empty picks kvm when the host's capabilities offer it. A
	// host whose /dev/kvm cannot run a stock guest kernel (a nested
	// hypervisor that accepts KVM calls but boots only paravirtualised
	// guests) needs "qemu".
	DomainType string
	// KeepAlive says when a connection whose daemon stopped answering
	// is given up on; zero fields take DefaultKeepAlive's.
	KeepAlive conn.KeepAlive
	// OpenTimeout bounds opening a connection, which keepalive cannot
	// cover; zero is DefaultOpenTimeout.
	OpenTimeout time.Duration
	// Run hears of the calls that wait for a host's daemon
	// (backends.Run.Await): connecting, observing the host, each domain
	// and each network, and every call of an apply; nil hears of none.
	Run *backends.Run
}

// Set is the hosts of one run: their connections, observations and
// call count. A step's apply runs on a view of it (Counting).
type Set struct {
	*shared
	// step counts the calls made on one step's behalf (see Counting);
	// nil on the Set New returns.
	step *Tally
}

// shared is the state of a Set that its per-step views (Counting)
// share.
type shared struct {
	// Opts are the options the Set was made with; OptsErr is a bad
	// environment value, reported by every step (libvirt.NewFromEnv).
	Opts    Options
	OptsErr error

	mu    sync.Mutex
	conns map[string]*libvirt.Connect // by spec URI
	// opening holds, per host, the lock its open is made under, so that
	// a host is opened once at a time without holding mu (and every
	// other host) for as long as an open may take.
	opening map[string]*sync.Mutex
	// observed caches one observation per host for the run, so 100 VM
	// steps on one host list its domains once. Apply on a host drops its
	// entry.
	observed map[string]*entry

	// silence holds the hosts given up on for the run and the calls in
	// flight (see package conn).
	silence conn.Silence

	calls atomic.Int64
	// Sleep waits between tries of a retried call; nil is time.Sleep.
	// Tests set it so that they do not wait.
	Sleep func(time.Duration)
}

// New returns the hosts of a run. Call Close when the run is over.
func New(opts Options) *Set {
	return &Set{shared: &shared{Opts: opts, conns: map[string]*libvirt.Connect{}, opening: map[string]*sync.Mutex{},
		observed: map[string]*entry{}}}
}

// Calls returns how many libvirt API calls have been made.
func (s *Set) Calls() int64 { return s.calls.Load() }

// Call counts one libvirt API call, and counts it to the step whose
// view s is (Counting).
func (s *Set) Call() {
	s.calls.Add(1)
	s.step.add()
}

// Calling counts one libvirt API call to server (see Server) and names
// it to the run until done is called (see Await).
func (s *Set) Calling(server, call string) (done func()) {
	s.Call()
	return s.Await(server, call)
}

// Await names calls to server to the run until done is called
// (backends.Run.Await): a daemon that is slow to answer leaves a call
// waiting, and nothing can cancel it, so diff and apply say whom they
// wait for, and so does the first Ctrl-C. The Set notes them too,
// so that a daemon given up on by keepalive is reported with the calls
// it left unanswered.
func (s *Set) Await(server, calls string) (done func()) {
	untrack := s.silence.Track(server, calls)
	if s.Opts.Run == nil {
		return untrack
	}
	told := s.Opts.Run.Await(server, calls)
	return func() {
		told()
		untrack()
	}
}

// Server names a host's daemon for a person: "libvirt host URI", with
// the URI opened when the URI map maps it, and without a password the
// URI might hold.
func (s *Set) Server(host string) string {
	out := "libvirt host " + RedactURI(host)
	if m, ok := s.Opts.URIMap[host]; ok {
		out += " (as " + RedactURI(m) + ")"
	}
	return out
}

// RedactURI hides the password a URI holds.
func RedactURI(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return uri
}

// Close closes every connection.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for uri, c := range s.conns {
		if _, err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", uri, err))
		}
		delete(s.conns, uri)
	}
	s.observed = map[string]*entry{}
	return errors.Join(errs...)
}

var (
	availOnce sync.Once
	availErr  error
)

// Available reports whether libvirt.so.0 can be loaded, and if not, why
// and what to install.
func Available() error {
	availOnce.Do(func() {
		if _, err := libvirt.GetVersion(); err != nil {
			availErr = fmt.Errorf("libvirt library libvirt.so.0 could not be loaded (install the libvirt0 package): %w", err)
		}
	})
	return availErr
}
