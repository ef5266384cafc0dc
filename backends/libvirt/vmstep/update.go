//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"
	"slices"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/plan"
)

// domainShapes is an existing domain seen three ways: cur is its
// persistent definition as observed, next that definition with the
// spec applied (def holds it as XML), live the running guest's (zero
// when it does not run).
type domainShapes struct {
	def             *libvirtxml.Domain
	cur, next, live domain.Shape
	// seed and iid are the wanted seed's volume (pool/name, "" without
	// cloudinit) and instance-id.
	seed, iid string
}

// planUpdate plans the changes to a domain site already owns: the
// definition first, then the owner element, the live changes, autostart
// and the running state.
func (p *vmPlanner) planUpdate(o *domObs, want *domain.Want) error {
	ds, err := p.shapes(o, want)
	if err != nil {
		return err
	}
	// Live changes first: they decide what stays pending.
	liveChanges := p.planLive(o.Running, ds.cur, ds.next, &ds.live)
	pending := liveDiffers(o, ds)
	written, err := p.planDefinition(o, ds, pending)
	if err != nil {
		return err
	}
	p.planWaiting(o, ds, written)
	p.planOwner(o, ds, want)
	p.changes = append(p.changes, liveChanges...)
	p.planAutostart(o)
	p.planRunning(o, len(pending) > 0)
	return nil
}

// shapes observes the domain's current definitions and applies the
// spec to the persistent one (the live one when the domain is
// transient).
func (p *vmPlanner) shapes(o *domObs, want *domain.Want) (*domainShapes, error) {
	base := o.InactiveXML
	if base == "" {
		base = o.LiveXML
	}
	ds := &domainShapes{def: &libvirtxml.Domain{}, iid: want.SeedIID}
	if want.SeedName != "" {
		ds.seed = want.SeedPool + "/" + want.SeedName
	}
	if err := ds.def.Unmarshal(base); err != nil {
		return nil, fmt.Errorf("domain %s: %w", p.vm.Name, err)
	}
	ds.cur = domain.ShapeOf(ds.def, o.Owner)
	want.Apply(ds.def, o.Others)
	ds.next = domain.ShapeOf(ds.def, want.Owner)
	if o.Running {
		liveOwner, _, _ := ownership.Parse(metadataOf(o.Live))
		ds.live = domain.ShapeOf(o.Live, liveOwner)
	}
	return ds, nil
}

func metadataOf(d *libvirtxml.Domain) string {
	if d == nil || d.Metadata == nil {
		return ""
	}
	return d.Metadata.XML
}

// liveDiffers names the fields in which the running guest (after the
// live changes) differs from the new definition: they stay pending
// until the next boot.
func liveDiffers(o *domObs, ds *domainShapes) map[string]bool {
	out := map[string]bool{}
	if o.Running {
		for _, f := range domain.Diff(ds.live, ds.next) {
			if f.Name != "owner" {
				out[f.Name] = true
			}
		}
	}
	return out
}

// restartHint says how long a change stays pending: until the restart
// this plan makes when the run asked for it (planRunning), else until
// the next shutdown, and how to restart now.
func (p *vmPlanner) restartHint() string {
	if p.vm.Running && p.run.Restart[p.vm.Tenant+"/"+p.vm.Name] {
		return "pending until the restart below, which this run makes as asked with --restart"
	}
	return fmt.Sprintf("pending until the guest's next shutdown (site apply --restart %s/%s --ack %s restarts it now)", p.vm.Tenant, p.vm.Name, plan.GateVMRestart)
}

// planDefinition plans config drift as one DefineXML of the merged
// definition, and returns the fields it writes.
func (p *vmPlanner) planDefinition(o *domObs, ds *domainShapes, pending map[string]bool) (map[string]bool, error) {
	vm, key := p.vm, p.step.ID
	define := !o.Persistent
	written := map[string]bool{}
	for _, f := range domain.Diff(ds.cur, ds.next) {
		if f.Name == "owner" {
			continue
		}
		define, written[f.Name] = true, true
		reason := "guest is shut off: the next start uses the new definition"
		switch {
		case o.Running && pending[f.Name]:
			reason = "written to the persistent definition; " + p.restartHint()
		case o.Running:
			reason = "written to the persistent definition; the running guest already has it, so nothing stays pending"
		}
		reason += ds.effect(f.Name, ds.cur)
		p.change(key, plan.ActionUpdate, plan.ImpactNextBoot, reason, map[string]any{f.Name: f.Before}, map[string]any{f.Name: f.After})
	}
	if !define {
		return written, nil
	}
	x, err := ds.def.Marshal()
	if err != nil {
		return nil, fmt.Errorf("domain %s: marshal the new definition: %w", vm.Name, err)
	}
	p.add(op{Kind: OpDefine, Domain: vm.Name, XML: x, Was: o.InactiveXML})
	if !o.Persistent {
		p.change(key, plan.ActionUpdate, plan.ImpactNone, "transient domain made persistent (DefineXML, the guest keeps running)",
			map[string]any{"persistent": false}, map[string]any{"persistent": true})
	}
	return written, nil
}

// effect says what a change of field name from the definition before
// does that "update" does not tell: a disk added to an existing domain
// is attached at its next boot (site does not hot-plug), and a new seed
// carries a new instance-id, on which cloud-init runs its first-boot
// modules again. "" for any other change.
func (ds *domainShapes) effect(name string, before domain.Shape) string {
	switch name {
	case "disks":
		had := map[string]bool{}
		for _, d := range before.Disks {
			had[diskVolume(d)] = true
		}
		for _, d := range ds.next.Disks {
			if !had[diskVolume(d)] {
				return "; a disk added to an existing domain is attached at its next boot: site does not hot-plug disks"
			}
		}
	case "cdroms":
		if ds.seed == "" || slices.ContainsFunc(before.CDROMs, func(c string) bool { return diskVolume(c) == ds.seed }) {
			return ""
		}
		return "; the new seed (its user-data, meta-data, network-config or hostname changed) has a new instance-id, " + ds.iid + ": at the next boot cloud-init takes the guest for a new instance and runs its first-boot modules again (users, SSH keys and new SSH host keys, runcmd)"
	}
	return ""
}

// diskVolume is the "pool/name" a shape's disk or cdrom line ends with.
func diskVolume(line string) string { return line[strings.LastIndex(line, " ")+1:] }

// planWaiting reports the differences between the running guest and a
// persistent definition that already says what the spec wants: written
// earlier, by site or by hand, waiting for the next shutdown.
func (p *vmPlanner) planWaiting(o *domObs, ds *domainShapes, written map[string]bool) {
	if !o.Running {
		return
	}
	for _, f := range domain.Diff(ds.live, ds.next) {
		if f.Name != "owner" && !written[f.Name] {
			p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNextBoot, "already in the persistent definition; "+p.restartHint()+ds.effect(f.Name, ds.live),
				map[string]any{f.Name: f.Before}, map[string]any{f.Name: f.After})
			p.det.waiting++
		}
	}
}

// planOwner sets the owner element when the live or the persistent one
// differs from what the spec wants. It is metadata: live and config
// change in one call.
func (p *vmPlanner) planOwner(o *domObs, ds *domainShapes, want *domain.Want) {
	ownerNow := ds.cur.Owner
	if o.Running && ds.live.Owner != ds.cur.Owner {
		ownerNow = ds.live.Owner
	}
	if ownerNow != ds.next.Owner || ds.cur.Owner != ds.next.Owner {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "owner element (SetMetadata, live and config)",
			map[string]any{"owner": ownerNow}, map[string]any{"owner": ds.next.Owner})
		p.add(op{Kind: OpSetMetadata, Domain: p.vm.Name, Owner: want.Owner, Live: o.Running})
	}
}

func (p *vmPlanner) planAutostart(o *domObs) {
	vm := p.vm
	if o.Autostart != vm.Autostart {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactLive, "autostart (SetAutostart: host side only, the guest keeps running)",
			map[string]any{"autostart": o.Autostart}, map[string]any{"autostart": vm.Autostart})
		p.add(op{Kind: OpSetAutostart, Domain: vm.Name, Bool: vm.Autostart})
	}
}

// planRunning starts or stops the guest as the spec says, and restarts
// it when changes are pending and the operator asked with --restart.
func (p *vmPlanner) planRunning(o *domObs, pending bool) {
	vm, key := p.vm, p.step.ID
	switch {
	case vm.Running && !o.Running:
		p.change(key, plan.ActionUpdate, plan.ImpactLive, "start the shut-off guest", map[string]any{"running": false}, map[string]any{"running": true})
		p.add(op{Kind: OpStart, Domain: vm.Name})
	case !vm.Running && o.Running:
		p.change(key, plan.ActionUpdate, plan.ImpactRestart, "stop the running guest (shutdown, then forced off after the timeout): an outage",
			map[string]any{"running": true}, map[string]any{"running": false}, plan.GateVMStop)
		p.add(op{Kind: OpStop, Gate: plan.GateVMStop, Domain: vm.Name})
	case vm.Running && o.Running && pending && p.run.Restart[vm.Tenant+"/"+vm.Name]:
		p.change(key, plan.ActionUpdate, plan.ImpactRestart, "restart the guest so pending changes take effect (asked with --restart): an outage",
			map[string]any{"domain id": o.ID()}, map[string]any{"domain id": "new"}, plan.GateVMRestart)
		p.add(op{Kind: OpRestart, Gate: plan.GateVMRestart, Domain: vm.Name})
	case vm.Running && o.Running && p.run.Restart[vm.Tenant+"/"+vm.Name]:
		// Asked for, but a restart would change nothing: say so rather
		// than leave the user to wonder why the guest kept running.
		p.notes = append(p.notes, fmt.Sprintf("--restart %s/%s: nothing is pending for it, so it is not restarted", vm.Tenant, vm.Name))
	}
}
