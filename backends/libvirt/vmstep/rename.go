//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"
	"maps"
	"strconv"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A VM renamed in the spec (web to www, same disks) is, without a state
// file, a domain the tenant no longer declares and a VM without a
// domain. Undefining web and defining www would lose the owner element
// that says site made web's volumes, and a run that stopped between the
// two would leave them attached to no domain, any tenant's to name. So
// the domain is renamed instead (virDomainRename), by www's step: the
// owner element goes with it, and at every moment one domain of the
// tenant has the volumes. libvirt renames only a shut-off, persistent
// domain: a running one is shut down first, an outage behind
// GATE-VM-DESTROY, the gate of the removal a rename replaces.

// renames pairs the VMs tenant t declares on host that have no domain
// there with the domains of t there that t no longer declares: www is
// web renamed when www names as a disk a volume web has as one (live or
// persistent), and no other such pairing involves either of them. It
// maps the new name to the old. Both steps ask it, so web's removal
// plans nothing for a domain www's step renames.
func (h *hostObs) renames(t *model.Tenant, host string) map[string]string {
	if t == nil {
		return nil
	}
	declared := map[string]bool{}
	var fresh []*model.VM // declared, without a domain
	for _, vm := range t.VMs {
		if vm.Host != host {
			continue
		}
		declared[vm.Name] = true
		if h.Domains[vm.Name] == nil {
			fresh = append(fresh, vm)
		}
	}
	olds, news := map[string][]string{}, map[string][]string{} // new -> old, old -> new
	for _, n := range h.DomainNames() {
		o := h.Domains[n]
		if declared[n] || o.Owner == nil || o.Owner.Tenant != t.Name || !o.Persistent {
			continue
		}
		for _, vm := range fresh {
			if hasDiskOf(vm, o) {
				olds[vm.Name] = append(olds[vm.Name], n)
				news[n] = append(news[n], vm.Name)
			}
		}
	}
	out := map[string]string{}
	for to, from := range olds {
		if len(from) == 1 && len(news[from[0]]) == 1 {
			out[to] = from[0]
		}
	}
	return out
}

// hasDiskOf reports whether one of vm's disks is a disk of domain o.
func hasDiskOf(vm *model.VM, o *domObs) bool {
	for _, d := range vm.Disks {
		for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
			if _, ok := domain.DiskOn(def, d.Pool, d.Name, ""); ok {
				return true
			}
		}
	}
	return false
}

// renamedAs is a view of the host in which domain from is called to,
// as it will be once renamed: shut off when it runs now, since the
// rename shuts it down first. The volumes read are shared with h.
func (h *hostObs) renamedAs(from, to string) *hostObs {
	v, view, obs := *h, *h.View, *h.Obs
	view.Obs = &obs
	v.View = &view
	v.Domains = maps.Clone(h.Domains)
	o := *h.Domains[from]
	delete(v.Domains, from)
	o.Name = to
	if o.Running {
		o.Running, o.State, o.Live, o.LiveXML = false, libvirt.DOMAIN_SHUTOFF, nil, ""
	}
	v.Domains[to] = &o
	return &v
}

// planRename plans the rename of the domain the VM was before the spec
// renamed it, if any, and from then on plans the VM on that domain.
func (p *vmPlanner) planRename() {
	vm := p.vm
	from, ok := p.h.renames(p.step.TenantSpec, vm.Host)[vm.Name]
	if !ok {
		return
	}
	o := p.h.Domains[from]
	p.seen = append(p.seen, "rename", from, strconv.FormatBool(o.Running), o.LiveXML)
	p.h = p.h.renamedAs(from, vm.Name)
	reason := fmt.Sprintf("the spec renamed VM %s to %s, which names its disks: rename the shut-off domain (virDomainRename), so it keeps its disks and the owner element that lists what site made for it", from, vm.Name)
	if !o.Running {
		p.change(p.step.ID, plan.ActionUpdate, plan.ImpactNone, reason, map[string]any{"name": from}, map[string]any{"name": vm.Name})
		p.add(op{Kind: OpRename, Domain: from, To: vm.Name})
		return
	}
	reason = fmt.Sprintf("the spec renamed VM %s to %s, which names its disks: libvirt renames only a shut-off domain, so shut %s down (forced off after %s), then rename it (virDomainRename), so it keeps its disks and the owner element that lists what site made for it: an outage",
		from, vm.Name, from, hosts.ShutdownTimeoutEnv)
	p.change(p.step.ID, plan.ActionUpdate, plan.ImpactRestart, reason,
		map[string]any{"name": from, "running": true}, map[string]any{"name": vm.Name, "running": false}, plan.GateVMDestroy)
	p.add(op{Kind: OpRename, Gate: plan.GateVMDestroy, Domain: from, To: vm.Name})
}

// renamedTo is the VM a declared VM's step renames undeclared domain
// name to, "" when none does.
func (h *hostObs) renamedTo(t *model.Tenant, host, name string) string {
	for to, from := range h.renames(t, host) {
		if from == name {
			return to
		}
	}
	return ""
}

// renameNote says that a declared VM's step renames the domain rather
// than the domain being removed.
func renameNote(host, from, to string) string {
	return fmt.Sprintf("the spec renamed VM %s to %s: step %s renames this domain (virDomainRename) and keeps its disks, instead of removing it", from, to, graph.VMStepID(host, to))
}

// rename renames domain o.Domain to o.To. A running one is shut down
// first, only when the plan said so (with its gate): a guest started
// since the plan is not stopped unasked.
func (a *applier) rename(dom *libvirt.Domain, o op) error {
	done := a.calling("IsActive of domain " + o.Domain)
	active, err := dom.IsActive()
	done()
	if err != nil {
		return fmt.Errorf("rename %s on %s: %w", o.Domain, a.host, err)
	}
	if active {
		if o.Gate == "" {
			return hint.Errorf(hint.Hint{Kind: hint.ReviewThenAcknowledge, Gate: string(plan.GateVMDestroy)},
				"rename %s on %s to %s: the domain was shut off when planned and runs now; site does not stop it unasked", o.Domain, a.host, o.To)
		}
		if err := a.stop(dom, o.Domain); err != nil {
			return err
		}
	}
	done = a.calling("Rename of domain " + o.Domain)
	err = dom.Rename(o.To, 0)
	done()
	if err != nil {
		return fmt.Errorf("rename domain %s on %s to %s: %w", o.Domain, a.host, o.To, err)
	}
	return nil
}
