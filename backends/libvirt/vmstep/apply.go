//go:build cgo && libvirt_dlopen

package vmstep

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
)

// Apply carries out a VM step's plan in a fixed order (OpKind's): the
// definition and metadata, whose owner element claims the volumes about
// to be made, then the volumes, autostart, live changes, the running
// state, then deletes. It refuses up front when a gated action's gate was not
// acknowledged, even though the executor checks gates first.
func (v Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return v.typed().Apply(ctx, sp, run)
}

func (v Driver) apply(ctx context.Context, sp *backends.StepPlan, det *vmDetail, run *backends.Run) (*backends.StepResult, error) {
	defer v.d.Forget(det.host)
	// The step counts the calls made planning again and applying, not
	// the check of the connection before it applies.
	t := hosts.NewTally()
	counted := Driver{v.d.counting(t)}
	if len(det.unread) > 0 {
		again, err := counted.replan(ctx, sp, det, run)
		if err != nil {
			return &backends.StepResult{Requests: t.Requests()}, err
		}
		det = again
	}
	if err := hosts.RefuseUnacked(sp.Step.ID, det.ops, run); err != nil {
		return nil, err
	}
	c, err := v.d.Conn(det.host)
	if err != nil {
		return nil, err
	}
	a := &applier{d: counted.d, c: c, host: det.host, res: &backends.StepResult{}, run: run, tenant: sp.Step.Tenant}
	ops := inApplyOrder(det.ops)
	err = a.runOps(ctx, ops)
	a.res.Requests = t.Requests()
	if err != nil {
		return a.res, err
	}
	// A restart or stop carries the pending changes out; otherwise they
	// wait for the guest's next boot, and this apply did nothing for
	// them.
	if !slices.ContainsFunc(ops, func(o op) bool { return o.Kind == OpRestart || o.Kind == OpStop }) {
		a.res.Waiting = det.waiting
	}
	return a.res, nil
}

// runOps carries out ops in order. After an interrupt it starts no
// further op (the one on the wire finishes): the step is partial, and
// says what it did.
func (a *applier) runOps(ctx context.Context, ops []op) error {
	for i, o := range ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		if a.run.Interrupted() {
			if i == 0 {
				return hosts.InterruptedBefore(0, len(ops))
			}
			return fmt.Errorf("%w; %s", hosts.InterruptedBefore(i, len(ops)), a.changedBefore())
		}
		if err := AfterOp(o.Kind, a.do(o)); err != nil {
			return err
		}
		a.done = append(a.done, o)
	}
	return nil
}

// AfterOp is called as each op of a VM step's apply has run, with the
// op's kind and error, and what it returns is taken for the op's error.
// Tests use it to stand for the process dying right after an op.
var AfterOp = func(_ OpKind, err error) error { return err }

// inApplyOrder is ops in the order apply runs them: OpKind's.
func inApplyOrder(ops []op) []op {
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, func(x, y op) int { return int(x.Kind) - int(y.Kind) })
	return ops
}

// replan plans a VM step again at apply time when its plan could not
// read some of its volumes: their declared pool did not exist or did not
// run, and the pool's step, which this step depends on, has made or
// started it by now (starting a pool refreshes its volume list). The
// fresh plan makes only the volumes that are really missing. It may not
// need a gate the run did not acknowledge (a disk that turned out
// smaller than the spec, or made from another base): the plan the user
// was shown could not ask for it, so the step stops there, having
// changed nothing.
func (v Driver) replan(ctx context.Context, sp *backends.StepPlan, det *vmDetail, run *backends.Run) (*vmDetail, error) {
	vm := sp.Step.VM
	v.d.Forget(det.host) // observed before the pool's step ran
	again, fresh, err := v.plan(ctx, sp.Step, run)
	if err != nil {
		return nil, fmt.Errorf("VM %s: planning its volumes again once pool %s runs: %w", vm.Name, strings.Join(det.unread, ", "), err)
	}
	if len(fresh.unread) > 0 {
		h := hint.Hint{Kind: hint.StartPool, Command: fmt.Sprintf("virsh -c %s pool-start %s", vm.Host, fresh.unread[0]), Target: poolStepID(vm, fresh.unread[0])}
		return nil, hint.Errorf(h, "VM %s: storage pool %s on %s still does not run, so its volumes cannot be read: nothing in this step was changed",
			vm.Name, fresh.unread[0], vm.Host)
	}
	for _, c := range again.Changes {
		for _, g := range c.Gates {
			if !run.Acked[g] {
				return nil, hint.Errorf(hint.Hint{Kind: hint.ReviewThenAcknowledge, Gate: string(g)},
					"VM %s: with pool %s running and its volumes read, %s %s needs %s (%s), which the plan shown could not ask for: nothing in this step was changed",
					vm.Name, strings.Join(det.unread, ", "), c.Action, c.Key, g, c.Reason)
			}
		}
	}
	return fresh, nil
}

// applier runs ops against one host.
type applier struct {
	d    *hostSet // the step's view (hostSet.counting): it counts the step's calls
	c    *libvirt.Connect
	host string
	res  *backends.StepResult
	run  *backends.Run // nil in tests that need no interrupt or progress
	// tenant is the tenant whose step this is, which its upload markers
	// name; "" for the image steps of site.cue.
	tenant string
	// try runs one op once; nil is (*applier).once. Tests set it to see
	// which ops do retries.
	try func(op) error
	// done are the step's ops carried out so far, for an error that
	// stops the step to say what it changed before (changedBefore).
	done []op
}

// changedBefore says what the step changed before the op that stops it
// (which itself changed nothing): "nothing was changed" only when no op
// ran. A VM renamed in the spec is renamed first, and a define refused
// after it leaves the domain under its new name.
func (a *applier) changedBefore() string {
	if len(a.done) == 0 {
		return "nothing was changed"
	}
	var did []string
	for _, o := range a.done {
		did = append(did, o.described())
	}
	return "nothing more was changed after this step " + strings.Join(did, ", ") + " (which stays: run site diff to see where it stands)"
}

// calling counts a call to the applier's host and names it to the run
// (hosts.Set.Calling), with what it acts on, until done is called: a
// daemon that stops answering mid-apply then shows which call it holds.
func (a *applier) calling(call string) (done func()) {
	return a.d.Calling(a.d.Server(a.host), call)
}

// w writes into the host's storage on the step's behalf, on the
// connection the applier holds now.
func (a *applier) w() *storage.Writer {
	return &storage.Writer{Set: a.d.Set, C: a.c, Host: a.host, Run: a.run, Tenant: a.tenant}
}

func (a *applier) domain(name string) (*libvirt.Domain, error) {
	done := a.calling("LookupDomainByName " + name)
	dom, err := a.c.LookupDomainByName(name)
	done()
	if err != nil {
		return nil, fmt.Errorf("look up domain %s on %s: %w", name, a.host, err)
	}
	return dom, nil
}

// do runs one op: the ones safe to repeat (see retryable) are retried
// when they fail transiently; all others are tried once.
func (a *applier) do(o op) error {
	try := a.try
	if try == nil {
		try = a.once
	}
	if !retryable(o.Kind) {
		return try(o)
	}
	// Checked once, before the first try: a retried define may find
	// its own first try's definition there.
	if err := a.definitionAsObserved(o); err != nil {
		return err
	}
	tried := false
	return a.d.Retry(func() error {
		if tried {
			// The last try failed transiently: take a live connection
			// (conn reopens a dead one) for this and later ops.
			c, err := a.d.Conn(a.host)
			if err != nil {
				return err
			}
			a.c = c
		}
		tried = true
		return try(o)
	})
}

// retryable reports whether repeating op k after a failure leaves the
// same result as doing it once. Defining the same XML, setting autostart
// to a value and setting the owner element are "ensure" calls. Starting,
// stopping, undefining, creating, uploading, resizing and deleting are
// not: a start that failed on the wire may have started the guest, a
// create may have created the volume, and repeating them would fail or
// act twice. Those fail the step, and the next run re-observes.
func retryable(k OpKind) bool {
	switch k {
	case OpDefine, OpSetMetadata, OpSetAutostart:
		return true
	}
	return false
}

// once runs one op with no retry: the volume ops and define here, the
// ops on an existing domain in onDomain.
func (a *applier) once(o op) error {
	switch o.Kind {
	case OpCreateVolume:
		return a.createDisk(o)
	case OpUploadSeed:
		return a.w().CreateVolume(o.Pool, o.Volume, uint64(len(o.ISO)), o.ISO)
	case OpClearUpload:
		return a.clearLeftUpload(o.Pool, o.Volume)
	case OpResizeVolume:
		return a.w().WithVolume(o.Pool, o.Volume, "Resize", func(vol *libvirt.StorageVol) error {
			if err := storage.StillReadAs(vol, o.Format); err != nil {
				return err
			}
			return vol.Resize(o.Bytes, 0)
		})
	case OpDeleteVolume, OpDropVolume:
		err := a.w().WithVolume(o.Pool, o.Volume, "Delete", func(vol *libvirt.StorageVol) error { return vol.Delete(0) })
		if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
			return nil // already gone
		}
		return err
	case OpDefine:
		return a.defineGuarded(o, func() error {
			done := a.calling("DomainDefineXML " + o.Domain)
			dom, err := a.c.DomainDefineXML(o.XML)
			done()
			if err != nil {
				return fmt.Errorf("define domain %s on %s: %w", o.Domain, a.host, err)
			}
			return dom.Free()
		})
	}

	dom, err := a.domain(o.Domain)
	if err != nil {
		return err
	}
	defer dom.Free()
	return a.onDomain(dom, o)
}

// onDomain runs one op on the domain it names, already looked up.
func (a *applier) onDomain(dom *libvirt.Domain, o op) error {
	switch o.Kind {
	case OpSetMetadata:
		flags := libvirt.DOMAIN_AFFECT_CONFIG
		if o.Live {
			flags |= libvirt.DOMAIN_AFFECT_LIVE
		}
		done := a.calling("SetMetadata of domain " + o.Domain)
		err := dom.SetMetadata(libvirt.DOMAIN_METADATA_ELEMENT, o.Owner.Element(), ownership.Prefix, ownership.NS, flags)
		done()
		if err != nil {
			return fmt.Errorf("set owner metadata of %s on %s: %w", o.Domain, a.host, err)
		}
	case OpSetAutostart:
		done := a.calling("SetAutostart of domain " + o.Domain)
		err := dom.SetAutostart(o.Bool)
		done()
		if err != nil {
			return fmt.Errorf("set autostart of %s on %s: %w", o.Domain, a.host, err)
		}
	case OpMemoryLive:
		done := a.calling("SetMemoryFlags of domain " + o.Domain)
		err := dom.SetMemoryFlags(o.Bytes, libvirt.DOMAIN_MEM_LIVE)
		done()
		if err != nil {
			a.res.Notes = append(a.res.Notes, fmt.Sprintf("%s: the live memory change failed (%v); the new size is pending until the next shutdown", o.Domain, err))
		}
	case OpVCPUsLive:
		done := a.calling("SetVcpusFlags of domain " + o.Domain)
		err := dom.SetVcpusFlags(uint(o.Bytes), libvirt.DOMAIN_VCPU_LIVE)
		done()
		if err != nil {
			a.res.Notes = append(a.res.Notes, fmt.Sprintf("%s: the live vCPU change failed (%v); the new count is pending until the next shutdown", o.Domain, err))
		}
	case OpStart:
		done := a.calling("Create of domain " + o.Domain)
		err := dom.Create()
		done()
		if err != nil {
			return fmt.Errorf("start %s on %s: %w", o.Domain, a.host, err)
		}
	case OpStop:
		return a.stop(dom, o.Domain)
	case OpRestart:
		return a.restart(dom, o.Domain)
	case OpUndefine:
		return a.undefine(dom, o.Domain)
	case OpRename:
		return a.rename(dom, o)
	default:
		return fmt.Errorf("unknown op %d", o.Kind)
	}
	return nil
}
