//go:build cgo && libvirt_dlopen

package libvirt

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
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// URIMapEnv names the environment variable that rewrites host URIs.
const URIMapEnv = "SITE_LIBVIRT_URI_MAP"

// ShutdownTimeoutEnv names the environment variable that overrides
// DefaultShutdownTimeout for NewFromEnv's driver (a Go duration).
const ShutdownTimeoutEnv = "SITE_LIBVIRT_SHUTDOWN_TIMEOUT"

// DomainTypeEnv names the environment variable that sets
// Options.DomainType for NewFromEnv's driver: "kvm" or "qemu".
const DomainTypeEnv = "SITE_LIBVIRT_DOMAIN_TYPE"

// Options configure a Driver.
type Options struct {
	// URIMap rewrites a spec's host URI to the URI to open (see
	// URIMapEnv). Hosts not in the map are opened as written.
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
	KeepAlive KeepAlive
	// OpenTimeout bounds opening a connection, which keepalive cannot
	// cover; zero is DefaultOpenTimeout.
	OpenTimeout time.Duration
	// Run hears of the calls that wait for a host's daemon
	// (backends.Run.Await): connecting, observing the host, each domain
	// and each network, and every call of an apply; nil hears of none.
	Run *backends.Run
}

// Driver converges the VM and network steps of one site run against any
// number of libvirt hosts. It keeps one connection per host until Close;
// make a new one for the next run.
type Driver struct {
	*shared
	// step counts the calls made on one step's behalf (see
	// Driver.counting); nil on the Driver New returns.
	step *tally
}

// shared is the state of a Driver that its per-step views (counting)
// share.
type shared struct {
	opts    Options
	optsErr error // a bad URIMapEnv or ShutdownTimeoutEnv, reported by every step

	mu    sync.Mutex
	conns map[string]*libvirt.Connect // by spec URI
	// opening holds, per host, the lock its open is made under, so that
	// a host is opened once at a time without holding mu (and every
	// other host) for as long as an open may take.
	opening map[string]*sync.Mutex
	// observed caches one observation per host for the run, so 100 VM
	// steps on one host list its domains once. Apply on a host drops its
	// entry.
	observed map[string]*hostEntry
	// defineNet serialises network definitions: libvirt picks the first
	// free virbrN for a network that names no bridge, and two defines at
	// once picked the same one (the second start then failed "creating
	// bridge interface virbr0: File exists").
	defineNet sync.Mutex

	// silence holds the hosts given up on for the run and the calls in
	// flight (see package conn).
	silence conn.Silence

	calls atomic.Int64
	// sleep waits between tries of a retried call; nil is time.Sleep.
	// Tests set it so that they do not wait.
	sleep func(time.Duration)
}

type hostEntry struct {
	once sync.Once
	obs  *hostObs
	err  error
}

// New returns a Driver. Call Close when the run is over.
func New(opts Options) *Driver {
	return &Driver{shared: &shared{opts: opts, conns: map[string]*libvirt.Connect{}, opening: map[string]*sync.Mutex{},
		observed: map[string]*hostEntry{}}}
}

// VMs returns the driver for plan.PhaseVM steps.
func (d *Driver) VMs() backends.Driver { return vmDriver{d} }

// Pools returns the driver for plan.PhaseStorage steps.
func (d *Driver) Pools() backends.Driver { return poolDriver{d} }

// Networks returns the driver for plan.PhaseNetwork steps.
func (d *Driver) Networks() backends.Driver { return netDriver{d} }

// Calls returns how many libvirt API calls the driver has made.
func (d *Driver) Calls() int64 { return d.calls.Load() }

// call counts one libvirt API call, and counts it to the step whose
// view d is (counting).
func (d *Driver) call() {
	d.calls.Add(1)
	d.step.add()
}

// calling counts one libvirt API call to server (see server) and names
// it to the run until done is called (see await).
func (d *Driver) calling(server, call string) (done func()) {
	d.call()
	return d.await(server, call)
}

// await names calls to server to the run until done is called
// (backends.Run.Await): a daemon that is slow to answer leaves a call
// waiting, and nothing can cancel it, so diff and apply say whom they
// wait for, and so does the first Ctrl-C. The driver notes them too,
// so that a daemon given up on by keepalive is reported with the calls
// it left unanswered.
func (d *Driver) await(server, calls string) (done func()) {
	untrack := d.silence.Track(server, calls)
	if d.opts.Run == nil {
		return untrack
	}
	told := d.opts.Run.Await(server, calls)
	return func() {
		told()
		untrack()
	}
}

// server names a host's daemon for a person: "libvirt host URI", with
// the URI opened when URIMapEnv maps it, and without a password the URI
// might hold.
func (d *Driver) server(host string) string {
	s := "libvirt host " + redactURI(host)
	if m, ok := d.opts.URIMap[host]; ok {
		s += " (as " + redactURI(m) + ")"
	}
	return s
}

func redactURI(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return uri
}

// Close closes every connection.
func (d *Driver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for uri, c := range d.conns {
		if _, err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", uri, err))
		}
		delete(d.conns, uri)
	}
	d.observed = map[string]*hostEntry{}
	return errors.Join(errs...)
}

// conn returns the open connection to host, opening it on first use,
// and again when the daemon dropped it (a restart). A host whose daemon
// stopped answering was given up on for the run: its error comes back
// at once.
func (d *Driver) conn(host string) (*libvirt.Connect, error) {
	if err := d.silence.GivenUp(host); err != nil {
		return nil, err
	}
	if c := d.aliveConn(host); c != nil {
		return c, nil
	}
	lock := d.openLock(host)
	lock.Lock()
	defer lock.Unlock()
	// Another step may have opened the host, or given up on it, while
	// this one waited for the lock.
	if err := d.silence.GivenUp(host); err != nil {
		return nil, err
	}
	if c := d.aliveConn(host); c != nil {
		return c, nil
	}
	c, err := d.open(host)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.conns[host] = c
	d.mu.Unlock()
	return c, nil
}

// aliveConn returns the open connection to host, or nil when there is
// none or it died, which it then closes and forgets.
func (d *Driver) aliveConn(host string) *libvirt.Connect {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.conns[host]
	if !ok {
		return nil
	}
	// A daemon restart kills the connection; open a new one then.
	d.call()
	if alive, err := c.IsAlive(); err == nil && alive {
		return c
	}
	_, _ = c.Close()
	delete(d.conns, host)
	return nil
}

// openLock returns the lock host is opened under.
func (d *Driver) openLock(host string) *sync.Mutex {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.opening[host]
	if l == nil {
		l = &sync.Mutex{}
		d.opening[host] = l
	}
	return l
}

// open opens a connection to host within the open timeout, with
// keepalive on. A daemon that does not answer the open is given up on
// for the run (conn.OpenWithin says why that is safe).
func (d *Driver) open(host string) (*libvirt.Connect, error) {
	if d.optsErr != nil {
		return nil, d.optsErr
	}
	if err := Available(); err != nil {
		return nil, err
	}
	if err := conn.StartEventLoop(); err != nil {
		return nil, err
	}
	uri := host
	if m, ok := d.opts.URIMap[host]; ok {
		uri = m
	}
	timeout := d.openTimeout()
	done := d.calling(d.server(host), "NewConnect")
	o, ok := conn.OpenWithin(uri, timeout)
	done()
	if !ok {
		return nil, d.silence.GiveUp(host, &conn.SilentHostError{Server: d.server(host), URI: uri, Calls: "NewConnect", Waited: timeout})
	}
	c, err := o.Conn, o.Err
	if err != nil {
		via := ""
		if uri != host {
			via = fmt.Sprintf(" (as %s, from %s)", uri, URIMapEnv)
		}
		return nil, fmt.Errorf("connect to libvirt host %s%s: %w; check that the daemon runs and that this user may use its socket", host, via, conn.Plain(err))
	}
	if err := conn.SetKeepAlive(c, d.keepAlive()); err != nil {
		_, _ = c.Close()
		return nil, fmt.Errorf("turn on keepalive for %s, without which a daemon that stops answering would hang the run: %w", d.server(host), conn.Plain(err))
	}
	if err := d.watchKeepAlive(c, host, uri); err != nil {
		_, _ = c.Close()
		return nil, fmt.Errorf("watch the connection to %s for a keepalive close: %w", d.server(host), conn.Plain(err))
	}
	return c, nil
}

// observe returns the run's observation of host, observing it on first
// use. A step's view (counting) keeps its own: a step that plans again
// at apply time observes the host itself, so its count does not hang on
// whether the executor had just observed the host for a step beside it.
func (d *Driver) observe(host string) (*hostObs, error) {
	observed := d.observed
	if d.step != nil {
		observed = d.step.observed
	}
	d.mu.Lock()
	e := observed[host]
	if e == nil {
		e = &hostEntry{}
		observed[host] = e
	}
	d.mu.Unlock()
	e.once.Do(func() {
		// Observing only reads, so a transient failure is retried whole,
		// on a connection conn reopens when the old one died: handles
		// from a dead connection are useless anyway.
		e.err = d.retry(func() error {
			c, err := d.conn(host)
			if err != nil {
				return err
			}
			e.obs, err = observeHost(d, c, host)
			return err
		})
	})
	if e.err != nil {
		return nil, e.err
	}
	// The host's observation is the run's, but the calls made reading
	// it further (volumes, pools) are the caller's.
	h := *e.obs
	h.d = d
	return &h, nil
}

// forget drops the observation of host after a change to it, so that
// the executor's re-observation sees the result.
func (d *Driver) forget(host string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.observed, host)
	if d.step != nil {
		delete(d.step.observed, host) // a step's view observes afresh too
	}
}

// refuseUnacked fails a step whose plan holds an action behind a gate
// that was not acknowledged. The executor checks every gate first; this
// guards the one irreversible place, right before the first call.
func refuseUnacked[O interface{ gate() plan.Gate }](step string, ops []O, run *backends.Run) error {
	for _, o := range ops {
		if g := o.gate(); g != "" && !run.Acked[g] {
			return hint.Errorf(hint.Hint{Kind: hint.Acknowledge, Gate: string(g)}, "step %s needs %s, which was not acknowledged: nothing was changed", step, g)
		}
	}
	return nil
}

// DefaultShutdownTimeout is how long NewFromEnv's driver waits for a
// guest to shut down before forcing it off.
const DefaultShutdownTimeout = 2 * time.Minute

var (
	availOnce sync.Once
	availErr  error
)
