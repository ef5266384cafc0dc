package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// apply writes the zone. When records were waiting for a lease it first
// waits for every one of them, then adds them, with the leased
// addresses, to the plan it was given (Inner's dnsplan.Completer) and
// applies that, unless writing them needs a gate the run did not
// acknowledge.
func (d *Driver) apply(ctx context.Context, sp *backends.StepPlan, dt *detail, run *backends.Run) (*backends.StepResult, error) {
	if len(dt.waiting) == 0 {
		return d.Inner.Apply(ctx, dt.inner, run)
	}
	comp, ok := d.Inner.(dnsplan.Completer)
	if !ok {
		return nil, hint.Errorf(hint.Hint{Kind: hint.ReportBug}, "zone %s: its DNS driver %T cannot add the leased addresses to its plan", sp.Step.Zone.Name, d.Inner)
	}
	addrs, err := d.wait(ctx, run, dt.waiting)
	if err != nil {
		var late *noLeaseError
		if !errors.As(err, &late) || ctx.Err() != nil {
			return nil, err
		}
		// The guest took no lease in time. The rest of the zone does not
		// depend on it (a live record at the lease names is kept as it
		// is): write it, and report the lease names as not converged,
		// so the run fails and the next one tries again, rather than
		// hold every other record of the zone back for one guest.
		res, aerr := d.Inner.Apply(ctx, dt.inner, run)
		if res == nil {
			res = &backends.StepResult{}
		}
		res.Problems = append(res.Problems, err.Error())
		return res, aerr
	}
	known := make([]*model.RRset, 0, len(dt.waiting))
	for _, rs := range dt.waiting {
		k := *rs
		k.Values = []string{addrs[*rs.Lease]}
		known = append(known, &k)
	}
	full, err := comp.Complete(ctx, dt.inner, known, run)
	if err != nil {
		return nil, fmt.Errorf("zone %s: with the leased addresses: %w; nothing was written", sp.Step.Zone.Name, err)
	}
	return d.Inner.Apply(ctx, full, run)
}

// noLeaseError is a wait that ended at --lease-timeout: the guest took
// no lease, which the rest of the zone does not wait for.
type noLeaseError struct{ msg string }

func (e *noLeaseError) Error() string { return e.msg + "; " + e.Hint().Render() }

// Hint is a lease not taken's advice: check the guest, run again, or
// wait longer.
func (e *noLeaseError) Hint() hint.Hint {
	return hint.Hint{Kind: hint.CheckGuestDHCP, Setting: "--lease-timeout"}
}

// wait polls the leases of the waiting records' VMs until each has one,
// ctx ends, the run is interrupted (Ctrl-C: nothing was written yet, so
// the wait is what stops), or the timeout passes, and says what it waits
// for; it returns the address each took.
func (d *Driver) wait(ctx context.Context, run *backends.Run, waiting []*model.RRset) (map[model.LeaseRef]string, error) {
	timeout, poll := d.Timeout, d.Poll
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if poll <= 0 {
		poll = time.Second
	}
	names := map[model.LeaseRef][]string{}
	var refs []model.LeaseRef
	for _, rs := range waiting {
		if _, ok := names[*rs.Lease]; !ok {
			refs = append(refs, *rs.Lease)
		}
		names[*rs.Lease] = append(names[*rs.Lease], rs.Name)
	}
	addrs := make(map[model.LeaseRef]string, len(refs))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	for _, ref := range refs {
		d.say(fmt.Sprintf("waiting for the DHCP lease of VM %s (up to %s) to publish %s", ref.VM, timeout, strings.Join(names[ref], ", ")))
		next := time.Now().Add(10 * time.Second)
		for {
			addr, err := d.Leases.Lease(ctx, ref)
			if err != nil && ctx.Err() == nil {
				return nil, fmt.Errorf("read the DHCP lease of VM %s: %w", ref.VM, err)
			}
			if addr != "" {
				addrs[ref] = addr
				d.say(fmt.Sprintf("VM %s has the lease of %s after %s", ref.VM, addr, time.Since(start).Round(time.Second)))
				break
			}
			if run.Interrupted() {
				return nil, fmt.Errorf("stopped waiting for the DHCP lease of VM %s, so %s unwritten: %w", ref.VM, stay(names[ref]), backends.ErrInterrupted)
			}
			if time.Now().After(next) {
				d.say(fmt.Sprintf("still waiting for the DHCP lease of VM %s (%s)", ref.VM, time.Since(start).Round(time.Second)))
				next = next.Add(10 * time.Second)
			}
			select {
			case <-ctx.Done():
				if ctx.Err() == context.DeadlineExceeded {
					return nil, &noLeaseError{fmt.Sprintf("VM %s took no DHCP lease within %s, so %s unwritten", ref.VM, timeout, stay(names[ref]))}
				}
				return nil, fmt.Errorf("waiting for the DHCP lease of VM %s: %w", ref.VM, ctx.Err())
			case <-time.After(poll):
			}
		}
	}
	return addrs, nil
}

func (d *Driver) say(s string) {
	if d.Progress != nil {
		d.Progress(s)
	}
}

// stay says which names stay unwritten: "a. stays", "a. and b. stay".
func stay(names []string) string {
	if len(names) == 1 {
		return names[0] + " stays"
	}
	return strings.Join(names, ", ") + " stay"
}
