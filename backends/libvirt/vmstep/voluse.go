//go:build cgo && libvirt_dlopen

package vmstep

import (
	"errors"
	"fmt"
	"slices"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
)

// A VM names its volumes by pool and name, and vet knows only the
// volumes the specs declare as disks: a volume another domain has
// attached, which no spec declares (the disk of a VM its tenant dropped
// from its spec, or of a domain site does not manage), would be any
// tenant's to name. So before a VM attaches a volume it does not have
// attached yet, or a volume is made from a base, the host's domains are
// looked at: a volume attached to a domain, running or not, that is not
// the VM's tenant's is that domain's data, and the VM's step is refused.
// The host's observation already holds every domain's definitions, so
// this makes no libvirt call, and a VM whose disks are attached to it
// already is not looked at again.

// volumeUser is a domain with a disk on a volume.
type volumeUser struct {
	dom *domObs
	dev string // the disk's target device (vda), "" when it has none
}

// foreignUser returns a domain other than the VM that has a disk on
// volume pool/name, or on its file path (path, "" when unknown), and is
// not the VM's tenant's; nil when there is none.
func (p *vmPlanner) foreignUser(pool, name, path string) *volumeUser {
	for _, n := range p.h.DomainNames() {
		o := p.h.Domains[n]
		if n == p.vm.Name || o.Owner != nil && o.Owner.Tenant == p.vm.Tenant {
			continue
		}
		for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
			if dev, ok := domain.DiskOn(def, pool, name, path); ok {
				return &volumeUser{dom: o, dev: dev}
			}
		}
	}
	return nil
}

// leftUser returns a domain of the VM's own tenant that the tenant no
// longer declares on the VM's host (the name a VM had before the spec
// renamed it) and that has a disk on volume pool/name (or path); nil
// when there is none. Its removal is a step of its own, which keeps the
// volumes the spec names; until it has run, the VM would share the
// disk with it.
func (p *vmPlanner) leftUser(pool, name, path string) *volumeUser {
	declared := map[string]bool{}
	if t := p.step.TenantSpec; t != nil {
		for _, vm := range t.VMs {
			if vm.Host == p.vm.Host {
				declared[vm.Name] = true
			}
		}
	}
	for _, n := range p.h.DomainNames() {
		o := p.h.Domains[n]
		if n == p.vm.Name || declared[n] || o.Owner == nil || o.Owner.Tenant != p.vm.Tenant {
			continue
		}
		for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
			if dev, ok := domain.DiskOn(def, pool, name, path); ok {
				return &volumeUser{dom: o, dev: dev}
			}
		}
	}
	return nil
}

// attachedHere reports whether the VM's own domain has a disk on volume
// pool/name (or its path) in its live or persistent definition.
func (p *vmPlanner) attachedHere(pool, name, path string) bool {
	o := p.h.Domains[p.vm.Name]
	if o == nil {
		return false
	}
	for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
		if _, ok := domain.DiskOn(def, pool, name, path); ok {
			return true
		}
	}
	return false
}

// refuseForeignDisk refuses the VM's disk on volume pool/name (at path,
// "" when unknown) while a domain that is not the tenant's has it.
func (p *vmPlanner) refuseForeignDisk(disk model.Disk, path string) error {
	u := p.foreignUser(disk.Pool, disk.Name, path)
	if u == nil {
		p.guard = append(p.guard, guardedVolume{Pool: disk.Pool, Name: disk.Name, Path: path, Disk: disk.Name})
		return nil
	}
	h := u.freeing(p.vm.Host, disk.Pool, disk.Name, "another volume")
	return hint.Errorf(h, "%sVM %s on %s: volume %s/%s is attached to %s: as this VM's disk it would give the VM that domain's data, so site refuses it; nothing was changed",
		at(disk.Pos), p.vm.Name, p.vm.Host, disk.Pool, disk.Name, u.describe())
}

// refuseLeftDisk refuses the VM's disk on volume pool/name while a
// domain its tenant no longer declares has it: two domains on one disk
// corrupt it (one running writes under the other), and the removal
// that frees it needs its own gate.
func (p *vmPlanner) refuseLeftDisk(disk model.Disk, path string) error {
	u := p.leftUser(disk.Pool, disk.Name, path)
	if u == nil {
		return nil
	}
	h := hint.Hint{Kind: hint.RemoveLeftFirst, Tenant: p.vm.Tenant, Target: graph.VMStepID(p.vm.Host, u.dom.Name), Gate: string(plan.GateVMDestroy)}
	return hint.Errorf(h, "%sVM %s on %s: volume %s/%s is attached to %s, which tenant %s no longer declares (renamed?; its removal keeps the disks the spec names): two domains on one disk corrupt it; nothing was changed",
		at(disk.Pos), p.vm.Name, p.vm.Host, disk.Pool, disk.Name, u.describe(), p.vm.Tenant)
}

// refuseForeignBase refuses to make the VM's disk from base volume
// disk.Base (at path) while a domain that is not the tenant's has it.
func (p *vmPlanner) refuseForeignBase(disk model.Disk, path string) error {
	u := p.foreignUser(disk.Pool, disk.Base, path)
	if u == nil {
		p.guard = append(p.guard, guardedVolume{Pool: disk.Pool, Name: disk.Base, Path: path, Disk: disk.Name, Base: true})
		return nil
	}
	how := "an overlay on it would read that domain's data"
	if disk.Clone {
		how = "a copy of it would copy that domain's data"
	}
	h := u.freeing(p.vm.Host, disk.Pool, disk.Base, "another base (an image site.cue declares, or a volume no domain has attached)")
	return hint.Errorf(h, "%sVM %s on %s: disk %s starts from base volume %s/%s, which is attached to %s: %s, so site refuses it; nothing was changed",
		at(disk.BasePos), p.vm.Name, p.vm.Host, disk.Name, disk.Pool, disk.Base, u.describe(), how)
}

// describe names the domain, its owner and its state.
func (u *volumeUser) describe() string {
	o := u.dom
	state := "defined, not running"
	if o.Running {
		state = "running"
	}
	s := fmt.Sprintf("domain %s, a domain site does not manage (no site owner element; %s)", o.Name, state)
	if o.Owner != nil {
		s = fmt.Sprintf("domain %s of tenant %q (%s)", o.Name, o.Owner.Tenant, state)
	}
	if u.dev != "" {
		s += ", as its disk " + u.dev
	}
	return s
}

// freeing is the advice for a VM that would take volume pool/name of
// the domain: name instead, or free it: for a
// domain of another tenant, the step that removes it, once that tenant
// no longer declares it, with the command that applies it (in a run of
// that tenant's file alone the step has no "@TENANT" suffix) and
// whether it deletes the volume; for a domain without an owner element,
// which no site step removes, the operator. Either way detaching the
// disk frees it too.
func (u *volumeUser) freeing(host, pool, name, instead string) hint.Hint {
	o := u.dom
	h := hint.Hint{Kind: hint.FreeVolume, Spec: instead, Object: o.Name, Command: u.detach(host)}
	if o.Owner == nil {
		return h
	}
	h.Tenant, h.Target, h.Gate = o.Owner.Tenant, graph.VMStepID(host, o.Name), string(plan.GateVMDestroy)
	want := ownership.Volume{Pool: pool, Name: name}.Key()
	h.Deletes = slices.ContainsFunc(o.Owner.Volumes, func(v ownership.Volume) bool { return v.Key() == want })
	return h
}

// detach is the virsh command that takes the disk from the domain.
func (u *volumeUser) detach(host string) string {
	target := u.dev
	if target == "" {
		target = "TARGET"
	}
	flags := ""
	if u.dom.Running {
		flags += " --live"
	}
	if u.dom.Persistent {
		flags += " --config"
	}
	return fmt.Sprintf("virsh -c %s detach-disk %s %s%s", host, u.dom.Name, target, flags)
}

// recheckUsers reads the host's domains now and checks that none but
// the define's own and its tenant's has a volume in o.Guard, as the
// plan found: another tenant's apply holds a lock of its own, and
// libvirt defines two domains on one volume without a word (QEMU's
// image locking keeps only two running guests from writing it at
// once).
func (a *applier) recheckUsers(o op) error {
	if len(o.Guard) == 0 {
		return nil
	}
	doms, err := hosts.ObserveDomains(a.d.Set, a.c, a.host)
	if err != nil {
		return fmt.Errorf("VM %s: check the host's domains again before defining it: %w", o.Domain, err)
	}
	p := &vmPlanner{h: &hostObs{View: &storage.View{Obs: &hosts.Obs{Host: a.host, Domains: doms}}}, vm: &model.VM{Name: o.Domain, Tenant: a.tenant, Host: a.host}}
	for _, g := range o.Guard {
		u := p.foreignUser(g.Pool, g.Name, g.Path)
		if u == nil {
			continue
		}
		what := "as this VM's disk it would give the VM that domain's data"
		if g.Base {
			what = fmt.Sprintf("disk %s would be made from it and read that domain's data", g.Disk)
		}
		return volumeTakenError{pool: g.Pool, name: g.Name, msg: fmt.Sprintf("VM %s on %s: volume %s/%s is attached to %s: %s, so site refuses it; %s",
			o.Domain, a.host, g.Pool, g.Name, u.describe(), what, u.freeing(a.host, g.Pool, g.Name, "another volume"))}
	}
	return nil
}

// volumeTakenError is recheckUsers' refusal: volume pool/name is
// another tenant's domain's.
type volumeTakenError struct {
	pool, name, msg string
}

func (e volumeTakenError) Error() string { return e.msg }

// defineGuarded defines o's domain, checking right before and right
// after that no other tenant's domain has a volume the plan found free.
// Two applies that each check before they define may both check first;
// the check after the define closes that: the later of two defines sees
// the earlier and takes its own back (both may; never both stay).
func (a *applier) defineGuarded(o op, define func() error) error {
	if err := a.recheckUsers(o); err != nil {
		return fmt.Errorf("%w; that domain had it after this run's plan (another tenant's apply, which holds a lock of its own, or the operator): %s", err, a.changedBefore())
	}
	if err := define(); err != nil {
		return err
	}
	err := a.recheckUsers(o)
	var taken volumeTakenError
	if !errors.As(err, &taken) {
		return err
	}
	return fmt.Errorf("%w; that domain was given it while this run defined %s, so %s; run site diff again, then apply", err, o.Domain, a.undoDefine(o, taken))
}

// undoDefine takes back a define that attached a volume another
// tenant's domain has: it undefines a domain the define made (site has
// made none of its volumes yet: their creates come after), and
// otherwise takes the disk on that volume out of the definition again.
// It says which it did.
func (a *applier) undoDefine(o op, taken volumeTakenError) string {
	if o.New {
		dom, err := a.domain(o.Domain)
		if err == nil {
			done := a.calling("Undefine of domain " + o.Domain)
			err = dom.Undefine()
			done()
			_ = dom.Free()
		}
		if err != nil {
			return fmt.Sprintf("undefining it again failed (%v): remove it with virsh -c %s undefine %s", conn.Plain(err), a.host, o.Domain)
		}
		return "site undefined it again"
	}
	if err := a.unclaim(o.Domain, taken.pool, taken.name); err != nil {
		return fmt.Sprintf("taking its disk on %s/%s out again failed (%v): take it out with virsh -c %s edit %s", taken.pool, taken.name, conn.Plain(err), a.host, o.Domain)
	}
	return fmt.Sprintf("site took its disk on %s/%s out of the definition again", taken.pool, taken.name)
}

// at is "FILE:LINE:COL: " for a valid position, else "".
func at(pos model.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	return visible.Pos(pos.File, pos.Line, pos.Col) + ": "
}
