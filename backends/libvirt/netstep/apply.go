//go:build cgo && libvirt_dlopen

package netstep

import (
	"context"
	"fmt"
	"strings"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// Apply defines, starts, sets autostart, and destroys what Plan found.
func (n Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return n.typed().Apply(ctx, sp, run)
}

func (n Driver) apply(ctx context.Context, sp *backends.StepPlan, det *Detail, run *backends.Run) (*backends.StepResult, error) {
	if err := hosts.RefuseUnacked(sp.Step.ID, det.Ops, run); err != nil {
		return nil, err
	}
	defer n.s.Forget(det.Host)
	c, err := n.s.Conn(det.Host)
	if err != nil {
		return nil, err
	}
	res := &backends.StepResult{Waiting: det.Waiting}
	// The step counts its ops' calls, not the check of the connection
	// above.
	t := hosts.NewTally()
	counted := Driver{s: n.s.Counting(t), define: n.define}
	defer func() { res.Requests = t.Requests() }()
	var done []Op
	for i, o := range det.Ops {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if run.Interrupted() {
			return res, withDone(hosts.InterruptedBefore(i, len(det.Ops)), done, det.Host)
		}
		if c, err = counted.doRetrying(c, det.Host, o, counted.do); err != nil {
			return res, withDone(err, done, det.Host)
		}
		done = append(done, o)
	}
	return res, nil
}

// withDone adds to err, the failure of a network step's op, what the
// ops before it did: an error that says the define "defined nothing"
// after the step stopped the network (a mode change) would have the
// operator take the network for untouched while it is down.
func withDone(err error, done []Op, host string) error {
	var did []string
	for _, o := range done {
		did = append(did, o.described(host))
	}
	if len(did) == 0 {
		return err
	}
	return fmt.Errorf("%w; before that, this step %s", err, strings.Join(did, ", "))
}

// doRetrying runs op with try (n.do outside tests): once, or, for the
// ops safe to repeat, retried on transient errors with a live connection
// (conn reopens a dead one) before each retry. It returns the connection
// later ops should use.
func (n Driver) doRetrying(c *libvirt.Connect, host string, o Op, try func(*libvirt.Connect, string, Op) error) (*libvirt.Connect, error) {
	if !netRetryable(o.Kind) {
		return c, try(c, host, o)
	}
	tried := false
	err := n.s.Retry(func() error {
		if tried {
			fresh, err := n.s.Conn(host)
			if err != nil {
				return err
			}
			c = fresh
		}
		tried = true
		return try(c, host, o)
	})
	return c, err
}

// netRetryable reports whether repeating a network op after a failure
// leaves the same result as doing it once: defining the same XML and
// setting autostart to a value do. Starting, destroying and DHCP host
// updates (an add repeated is a duplicate entry) are tried once.
func netRetryable(k OpKind) bool {
	return k == OpDefine || k == OpAutostart
}

func (n Driver) do(c *libvirt.Connect, host string, o Op) error {
	server := n.s.Server(host)
	if o.Kind == OpDefine {
		n.define.Lock()
		defer n.define.Unlock()
		// The plan's overlap check saw the host as it was then; another
		// tenant's apply may have defined a network since. libvirt does
		// not refuse an overlapping define, and its start refuses only a
		// prefix some route has exactly (10.90.0.0/16 starts beside a
		// running 10.90.0.0/24), so check again right before acting.
		if err := n.recheckOverlap(c, host, o); err != nil {
			return fmt.Errorf("%w; that network was defined after this run's plan (another tenant's apply, which holds a lock of its own, or the operator), so site defined nothing", err)
		}
		done := n.s.Calling(server, "NetworkDefineXML "+o.Name)
		nw, err := c.NetworkDefineXML(o.XML)
		done()
		if err != nil {
			return fmt.Errorf("define network %s on %s: %w", o.Name, host, err)
		}
		_ = nw.Free()
		// Two applies may both check before either defines. Checking
		// again after the define closes that: the later of two defines
		// sees the earlier one and takes its own back (both may; never
		// both stay).
		if err := n.recheckOverlap(c, host, o); err != nil {
			return fmt.Errorf("%w; that network was defined while this run defined %s, so %s; run site diff again, then apply", err, o.Name, n.undoDefine(c, host, o))
		}
		return nil
	}
	done := n.s.Calling(server, "LookupNetworkByName "+o.Name)
	nw, err := c.LookupNetworkByName(o.Name)
	done()
	if err != nil {
		return fmt.Errorf("look up network %s on %s: %w", o.Name, host, err)
	}
	defer nw.Free()
	// call names a call on the network to the run while it waits.
	call := func(name string, f func() error) error {
		defer n.s.Calling(server, name+" of network "+o.Name)()
		return f()
	}
	isActive := func() (active bool, err error) {
		err = call("IsActive", func() (err error) { active, err = nw.IsActive(); return err })
		return active, err
	}
	switch o.Kind {
	case OpStart:
		err = call("Create", nw.Create)
	case OpAutostart:
		err = call("SetAutostart", func() error { return nw.SetAutostart(o.Bool) })
	case OpHostAdd, OpHostDelete:
		cmd := libvirt.NETWORK_UPDATE_COMMAND_ADD_LAST
		if o.Kind == OpHostDelete {
			cmd = libvirt.NETWORK_UPDATE_COMMAND_DELETE
		}
		var flags libvirt.NetworkUpdateFlags
		if o.Live {
			flags |= libvirt.NETWORK_UPDATE_AFFECT_LIVE
		}
		if o.Config {
			flags |= libvirt.NETWORK_UPDATE_AFFECT_CONFIG
		}
		err = call("Update", func() error { return nw.Update(cmd, libvirt.NETWORK_SECTION_IP_DHCP_HOST, -1, o.XML, flags) })
	case OpStop:
		if active, aerr := isActive(); aerr == nil && active {
			err = call("Destroy", nw.Destroy)
		}
	case OpDestroy:
		if active, aerr := isActive(); aerr == nil && active {
			if err = call("Destroy", nw.Destroy); err != nil {
				break
			}
		}
		err = call("Undefine", nw.Undefine)
	}
	if err != nil {
		return fmt.Errorf("network %s on %s: %w", o.Name, host, err)
	}
	return nil
}

// recheckOverlap reads host's networks now and checks o's network
// against them as the plan did.
func (n Driver) recheckOverlap(c *libvirt.Connect, host string, o Op) error {
	if o.Net == nil || o.Net.CIDR == "" {
		return nil
	}
	nets, err := hosts.ObserveNetworks(n.s, c, host)
	if err != nil {
		return fmt.Errorf("network %s on %s: check the host's networks again before defining it: %w", o.Name, host, err)
	}
	return checkOverlap(&hosts.Obs{Host: host, Networks: nets}, o.Net)
}

// undoDefine takes back a define whose network was found overlapping
// another after it: it undefines a network the define made, or puts
// back the definition it replaced, and says which it did.
func (n Driver) undoDefine(c *libvirt.Connect, host string, o Op) string {
	server := n.s.Server(host)
	if o.Prev != "" {
		done := n.s.Calling(server, "NetworkDefineXML "+o.Name)
		nw, err := c.NetworkDefineXML(o.Prev)
		done()
		if err != nil {
			return fmt.Sprintf("putting back the definition it replaced failed (%v): check it with virsh -c %s net-dumpxml --inactive %s", conn.Plain(err), host, o.Name)
		}
		_ = nw.Free()
		return "site put back the definition it replaced"
	}
	done := n.s.Calling(server, "Undefine of network "+o.Name)
	defer done()
	nw, err := c.LookupNetworkByName(o.Name)
	if err == nil {
		defer nw.Free()
		err = nw.Undefine()
	}
	if err != nil {
		return fmt.Sprintf("undefining it again failed (%v): remove it with virsh -c %s net-undefine %s", conn.Plain(err), host, o.Name)
	}
	return "site undefined it again"
}
