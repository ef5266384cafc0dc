//go:build cgo && libvirt_dlopen

package vmstep

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Driver converges plan.PhaseVM steps on a run's hosts.
type Driver struct{ d *hostSet }

// New returns the VM steps' Driver on s.
func New(s *hosts.Set) Driver { return Driver{&hostSet{s}} }

// OpKind is one libvirt action of a VM step's apply, in the order apply
// runs them.
type OpKind int

const (
	// OpRename renames the domain a VM was before the spec renamed it
	// (rename.go), before anything else acts on the VM by its new name.
	OpRename OpKind = iota
	// OpDefine and OpSetMetadata write the owner element, which lists
	// the volumes site makes for the domain, before the volume ops make
	// them: a run killed between leaves a volume the next run knows for
	// site's (and a removal deletes), never one listed nowhere. libvirt
	// resolves a disk's volume when the guest starts, not at define.
	OpDefine
	OpSetMetadata
	// OpDropVolume deletes a disk that is made again from a new base,
	// before OpCreateVolume makes it.
	OpDropVolume
	OpCreateVolume
	OpUploadSeed
	OpResizeVolume
	OpSetAutostart
	OpMemoryLive
	OpVCPUsLive
	OpStop
	OpRestart
	OpStart
	OpUndefine
	OpDeleteVolume
	// OpClearUpload deletes what a seed upload that no spec names any
	// more left (uploadleft.go).
	OpClearUpload
)

// op is one action; which fields matter depends on Kind.
type op struct {
	Kind   OpKind
	Gate   plan.Gate // checked again right before the action
	Domain string    // OpCreateVolume too: the domain whose owner element claims the volume
	To     string    // OpRename: the new name
	Pool   string
	Volume string
	Bytes  uint64
	ISO    []byte
	// Base, when set, is the volume OpCreateVolume starts from: its
	// path, format and size; Clone copies it instead of an overlay.
	Base, BasePath, BaseFormat string
	BaseBytes                  uint64
	Clone                      bool
	XML                        string
	Owner                      *ownership.Owner
	Bool                       bool
	Live                       bool // SetMetadata: the domain runs, so change the live definition too
	// Format, for OpResizeVolume, is the format the plan read the
	// volume in, which libvirt must still read it in to grow it.
	Format string
	// Guard, for OpDefine, lists the volumes the plan found no other
	// tenant's domain has (a disk the VM attaches, a base it makes a
	// disk from), which the define checks again as it acts: another
	// tenant's apply (its lock is its own) may attach one meanwhile.
	// New says the define makes the domain, which undoing it undefines.
	Guard []guardedVolume
	New   bool
	// Was, for an OpDefine of an existing persistent domain, is its
	// definition as the plan read it, which the define was made from
	// and checks is still there (definitionAsObserved).
	Was string
}

// guardedVolume is a volume a VM's plan relied on no other tenant's
// domain having: pool/name at path ("" when unknown), the disk the VM
// has on it or, for a base, the disk made from it.
type guardedVolume struct {
	Pool, Name, Path, Disk string
	Base                   bool
}

func (o op) Gated() plan.Gate { return o.Gate }

// described says what o did, for an error of a later op of its step.
func (o op) described() string {
	switch o.Kind {
	case OpRename:
		if o.Gate != "" {
			return fmt.Sprintf("renamed domain %s to %s (shutting it down first if it ran)", o.Domain, o.To)
		}
		return fmt.Sprintf("renamed domain %s to %s", o.Domain, o.To)
	}
	// Only a rename comes before the define, the one op whose refusal
	// asks; any other is named by the domain it acted on.
	return "acted on domain " + o.Domain
}

// vmDetail is a VM step's plan for Apply.
type vmDetail struct {
	host string
	ops  []op
	// unread names the declared pools whose volumes this plan could not
	// read (missing or not active). Their steps make or start them
	// first, so Apply plans the step again then and carries out that
	// plan (see replan).
	unread []string
	// waiting counts the changes that are only pending: written to the
	// persistent definition before, waiting for the guest's next boot.
	waiting int
	image   *backends.Image // for the journal (journalimage.go)
}

// Plan observes the VM's host (once per run) and classifies every
// difference by its impact on the guest.
func (v Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return v.typed().Plan(ctx, step, run)
}

// typed is the VM driver as a backends.Driver: its plans carry the ops
// their Apply runs.
func (v Driver) typed() backends.Typed[*vmDetail] {
	return conn.Typed("libvirt VM", v.plan, v.apply)
}

func (v Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, *vmDetail, error) {
	if step.Undeclared != nil {
		return v.planUndeclared(step)
	}
	if step.VM == nil {
		return nil, nil, fmt.Errorf("step %s: not a VM step", step.ID)
	}
	vm := step.VM
	h, err := v.d.observe(vm.Host)
	if err != nil {
		return nil, nil, err
	}
	p := &vmPlanner{h: h, vm: vm, step: step, run: run, det: &vmDetail{host: vm.Host}}
	if err := p.plan(); err != nil {
		return nil, nil, err
	}
	p.det.image = p.journalImage()
	return &backends.StepPlan{Step: step, Changes: p.changes, Notes: p.notes, Fingerprint: hosts.Fingerprint(p.seen...)}, p.det, nil
}

// vmPlanner holds one VM step's planning state.
type vmPlanner struct {
	h    *hostObs
	vm   *model.VM
	step *graph.Step
	run  *backends.Run
	det  *vmDetail

	changes []plan.Change
	notes   []string
	seen    []string // observed facts, for the fingerprint
	// guard is what the plan found free of other tenants' domains, for
	// the define to check again (op.Guard).
	guard []guardedVolume
}

func (p *vmPlanner) change(key string, a plan.Action, imp plan.Impact, reason string, before, after map[string]any, gates ...plan.Gate) {
	p.changes = append(p.changes, plan.Change{Key: key, Step: p.step.ID, Phase: p.step.Phase, Tenant: p.vm.Tenant,
		Action: a, Impact: imp, Gates: gates, Reason: reason, Before: before, After: after})
}

func (p *vmPlanner) add(o op) {
	if o.Kind == OpDefine {
		o.Guard = slices.Clone(p.guard)
	}
	p.det.ops = append(p.det.ops, o)
}

// notRead records that a volume in pool could not be read because of
// vol.NoPool, so Apply must plan the step again once the pool runs.
func (p *vmPlanner) notRead(pool string, vol *storage.Volume) {
	if vol.NoPool != "" && !slices.Contains(p.det.unread, pool) {
		p.det.unread = append(p.det.unread, pool)
	}
}

func (p *vmPlanner) plan() error {
	p.planRename()
	o := p.h.Domains[p.vm.Name]
	if err := p.observeDomain(o); err != nil {
		return err
	}
	want := &domain.Want{VM: p.vm, Owner: &ownership.Owner{Tenant: p.vm.Tenant}}
	owned := map[string]ownership.Volume{} // what the observed owner lists
	if o != nil {
		for _, ov := range o.Owner.Volumes {
			owned[ov.Key()] = ov
		}
	}
	if err := p.planDisks(want, owned); err != nil {
		return err
	}
	if err := p.planSeed(want); err != nil {
		return err
	}
	p.planUnwantedVolumes(o, want, owned)
	p.planLeftUploads()
	want.Owner.Normalize()

	if o == nil {
		p.planCreate(want)
	} else if err := p.planUpdate(o, want); err != nil {
		return err
	}
	return nil
}

// observeDomain refuses a domain site does not own for the VM's tenant,
// and records what was observed of it (or its absence) for the
// fingerprint.
func (p *vmPlanner) observeDomain(o *domObs) error {
	vm := p.vm
	if o == nil {
		p.seen = append(p.seen, vm.Name, "absent")
		return nil
	}
	if o.Owner == nil {
		h := hint.Hint{Kind: hint.Adopt, Tenant: vm.Tenant,
			Command: fmt.Sprintf("virsh -c %s metadata %s %s --key %s --set '<owner tenant=\"%s\"/>' --live --config", vm.Host, vm.Name, ownership.NS, ownership.Prefix, vm.Tenant)}
		return hint.Errorf(h, "domain %s on %s exists but carries no site owner element, so site will not change it", vm.Name, vm.Host)
	}
	if o.Owner.Tenant != vm.Tenant && p.step.Removal != "" {
		h := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: o.Owner.Tenant, InRun: true, Target: p.step.Removal, Gate: string(plan.GateVMDestroy)}
		return hint.Errorf(h, "domain %s on %s belongs to tenant %q, not %q, and %s no longer declares it: its removal is step %s in a run of these PATHs", vm.Name, vm.Host, o.Owner.Tenant, vm.Tenant, o.Owner.Tenant, p.step.Removal)
	}
	if o.Owner.Tenant != vm.Tenant {
		h := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: o.Owner.Tenant, Target: graph.VMStepID(vm.Host, vm.Name), Gate: string(plan.GateVMDestroy)}
		return hint.Errorf(h, "domain %s on %s belongs to tenant %q, not %q", vm.Name, vm.Host, o.Owner.Tenant, vm.Tenant)
	}
	p.seen = append(p.seen, vm.Name, strconv.Itoa(int(o.State)), strconv.FormatBool(o.Persistent), strconv.FormatBool(o.Autostart), o.LiveXML, o.InactiveXML)
	return nil
}

func (p *vmPlanner) planCreate(want *domain.Want) {
	vm := p.vm
	def := domain.New(vm.Name, p.h.DomType)
	want.Apply(def, "")
	x, err := def.Marshal()
	if err != nil {
		panic(fmt.Sprintf("marshal a domain built from the model: %v", err)) // our own struct: a bug
	}
	s := domain.ShapeOf(def, want.Owner)
	after := map[string]any{"memory": domain.KiBString(s.MemoryKiB), "vcpus": s.VCPUs, "autostart": vm.Autostart, "running": vm.Running}
	for name, list := range map[string][]string{"disks": s.Disks, "cdroms": s.CDROMs, "nics": s.NICs} {
		if len(list) > 0 {
			after[name] = list
		}
	}
	p.change(p.step.ID, plan.ActionCreate, plan.ImpactNone, "new domain ("+p.h.DomType+")", nil, after)
	p.add(op{Kind: OpDefine, Domain: vm.Name, XML: x, New: true})
	if vm.Autostart {
		p.add(op{Kind: OpSetAutostart, Domain: vm.Name, Bool: true})
	}
	if vm.Running {
		p.add(op{Kind: OpStart, Domain: vm.Name})
	}
}

// planUndeclared plans the removal of a domain its tenant no longer
// declares (found by Discover): undefine it and delete the volumes its
// owner element lists that no other domain uses and that the spec does
// not name as a VM's disk or base (a VM renamed in the spec keeps its
// disks), behind GATE-VM-DESTROY.
// A domain gone meanwhile, or no longer the tenant's, plans nothing.
func (v Driver) planUndeclared(step *graph.Step) (*backends.StepPlan, *vmDetail, error) {
	u := step.Undeclared
	h, err := v.d.observe(u.Host)
	if err != nil {
		return nil, nil, err
	}
	det := &vmDetail{host: u.Host}
	sp := &backends.StepPlan{Step: step}
	o := h.Domains[u.Name]
	if o == nil || o.Owner == nil || o.Owner.Tenant != step.Tenant {
		sp.Fingerprint = hosts.Fingerprint("undeclared", u.Name, "gone")
		return sp, det, nil
	}
	sp.Fingerprint = hosts.Fingerprint("undeclared", u.Name, o.LiveXML, o.InactiveXML)
	if to := h.renamedTo(step.TenantSpec, u.Host, u.Name); to != "" {
		sp.Notes = append(sp.Notes, renameNote(u.Host, u.Name, to))
		return sp, det, nil
	}
	refs := h.VolumeRefs(u.Name, true)
	wanted := specVolumes(step.TenantSpec, u.Host)
	var vols, kept []string
	var delVols []ownership.Volume
	for _, ov := range o.Owner.Volumes {
		if len(refs[ov.Key()]) > 0 {
			continue // another domain uses it
		}
		if vm, ok := wanted[ov.Key()]; ok {
			// A VM renamed in the spec names the disks of the domain it
			// was: they are its data, not this removal's to delete.
			kept = append(kept, ov.Pool+"/"+ov.Name+": the spec names it as a disk of VM "+vm)
			continue
		}
		vols = append(vols, ov.String())
		delVols = append(delVols, ov)
	}
	sort.Strings(vols)
	sort.Strings(kept)
	reason := "the spec no longer declares this domain: undefine it"
	if o.Running {
		reason = "the spec no longer declares this running domain: force it off, undefine it"
	}
	if len(vols) > 0 {
		reason += " and delete its volumes"
	}
	if o.Running {
		reason += " (an outage)"
	}
	if len(kept) > 0 {
		reason += "; keeps " + strings.Join(kept, "; keeps ")
	}
	before := map[string]any{"running": o.Running}
	if len(vols) > 0 {
		before["volumes"] = vols
	}
	sp.Changes = append(sp.Changes, plan.Change{Key: step.ID, Step: step.ID, Phase: step.Phase, Tenant: step.Tenant,
		Action: plan.ActionDelete, Impact: plan.ImpactDestroy, Gates: []plan.Gate{plan.GateVMDestroy}, Reason: reason, Before: before})
	det.ops = append(det.ops, op{Kind: OpUndefine, Gate: plan.GateVMDestroy, Domain: u.Name})
	for _, ov := range delVols {
		det.ops = append(det.ops, op{Kind: OpDeleteVolume, Gate: plan.GateVMDestroy, Pool: ov.Pool, Volume: ov.Name})
	}
	return sp, det, nil
}

// specVolumes maps each volume tenant t's spec names on host as a disk
// or a base (pool and name, as ownership.Volume.Key) to the VM that names it.
func specVolumes(t *model.Tenant, host string) map[string]string {
	out := map[string]string{}
	if t == nil {
		return out
	}
	for _, vm := range t.VMs {
		if vm.Host != host {
			continue
		}
		for _, d := range vm.Disks {
			out[ownership.Volume{Pool: d.Pool, Name: d.Name}.Key()] = vm.Name
			if d.Base != "" {
				out[ownership.Volume{Pool: d.Pool, Name: d.Base}.Key()] = vm.Name
			}
		}
	}
	return out
}
