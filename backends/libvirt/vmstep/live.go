//go:build cgo && libvirt_dlopen

package vmstep

import (
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/compiler/plan"
)

// planLive plans the changes a running guest that stays running takes
// live: memory balloons up to the running maximum, vCPUs hotplug up to
// the running maximum. It updates live to what the guest will have, so
// the caller can tell what stays pending; a guest that apply stops gets
// none.
//
// A live change may not land: a balloon request is the guest's to carry
// out (a guest without a balloon driver never does), and libvirt refuses
// to unplug the vCPUs a QEMU guest booted with. So site asks only in the
// run that writes the new value to the persistent definition (cur is
// that definition as observed, next as it will be). Once the definition
// has it, a live value that still differs is pending until the next
// boot, like any next-boot change, rather than a live change that every
// later apply asks for again and then finds not converged.
func (p *vmPlanner) planLive(running bool, cur, next domain.Shape, live *domain.Shape) []plan.Change {
	vm := p.vm
	if !running || !vm.Running {
		return nil
	}
	var out []plan.Change
	change := func(reason, name string, before, after any) {
		out = append(out, plan.Change{Key: p.step.ID, Step: p.step.ID, Phase: p.step.Phase, Tenant: vm.Tenant,
			Action: plan.ActionUpdate, Impact: plan.ImpactLive, Reason: reason, Before: map[string]any{name: before}, After: map[string]any{name: after}})
	}
	if live.Balloon && cur.CurrentKiB != next.CurrentKiB && next.CurrentKiB <= live.MemoryKiB && live.CurrentKiB != next.CurrentKiB {
		change("ask the guest's balloon driver for the new size (SetMemoryFlags live, up to the running maximum); a guest without one keeps its memory until the next boot", "current memory", domain.KiBString(live.CurrentKiB), domain.KiBString(next.CurrentKiB))
		p.add(op{Kind: OpMemoryLive, Domain: vm.Name, Bytes: uint64(next.CurrentKiB)})
		live.CurrentKiB = next.CurrentKiB
	}
	if cur.VCPUs != next.VCPUs && live.VCPUs != next.VCPUs && next.VCPUs <= live.MaxVCPUs {
		change("vCPU hotplug (SetVcpusFlags live, up to the running maximum)", "vcpus", live.VCPUs, next.VCPUs)
		p.add(op{Kind: OpVCPUsLive, Domain: vm.Name, Bytes: uint64(next.VCPUs)})
		live.VCPUs = next.VCPUs
	}
	return out
}
