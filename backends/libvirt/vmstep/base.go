//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A disk with a base starts from an image volume in its own pool: by
// default a qcow2 overlay whose backing store is the base (the base is
// shared and never written), with clone: true a full copy. The base is
// the operator's: site never creates, changes or deletes it.

// baseImage is the observed base volume of a disk.
type baseImage struct {
	Name, Path, Format string
	Capacity           uint64
}

// base looks up the base volume of disk and checks that the disk can be
// made from it. A missing base is an error that blocks the VM's step, so
// the apply changes nothing rather than make a blank disk.
func (p *vmPlanner) base(disk model.Disk) (*baseImage, error) {
	vm := p.vm
	vol, err := p.h.Uploaded(disk.Pool, disk.Base, p.declared(disk.Pool))
	if err != nil {
		return nil, err
	}
	p.seen = append(p.seen, "base", disk.Pool, disk.Base, vol.Path, vol.Format, fmt.Sprint(vol.Capacity), vol.NoPool, fmt.Sprint(vol.Partial))
	p.notRead(disk.Pool, vol)
	if img := p.image(disk); img != nil && !vol.Exists {
		// Its step uploads it first, in this run.
		f, err := storage.ReadImageFile(img)
		if err != nil {
			return nil, err
		}
		vol = &storage.Volume{Exists: true, Path: storage.ImagePath(img), Format: f.Format, Capacity: f.Capacity}
	}
	switch {
	case vol.NoPool != "" && !vol.Exists:
		// Where the pool does not exist yet, a base read from its
		// directory is checked as any other; a missing one can be put
		// there only once the pool is made.
		why := vol.NoPool
		if vol.Unknown != "" {
			why += ", and " + vol.Unknown
		}
		return nil, hint.Errorf(hint.Hint{Kind: hint.StartPool, Target: poolStepID(vm, disk.Pool)},
			"%sVM %s: disk %s starts from base volume %s in pool %s on %s (host %s), but that pool %s, so the base cannot be checked",
			at(disk.BasePos), vm.Name, disk.Name, disk.Base, disk.Pool, vm.Host, vm.HostName, why)
	case vol.Partial:
		h := hint.Hint{Kind: hint.ProvideImage, Spec: fmt.Sprintf("hosts: %s: images: %q: {pool: %q, source: FILE}", vm.HostName, disk.Base, disk.Pool),
			Command: fmt.Sprintf("virsh -c %s vol-delete --pool %s %s; virsh -c %s vol-delete --pool %s %s; then upload it", vm.Host, disk.Pool, disk.Base, vm.Host, disk.Pool, vol.Markers[len(vol.Markers)-1])}
		return nil, hint.Errorf(h, "%sVM %s: disk %s starts from base volume %s in pool %s on %s (host %s), but an upload into it has not finished (marker %s), unless another site run is uploading it now; nothing was changed",
			at(disk.BasePos), vm.Name, disk.Name, disk.Base, disk.Pool, vm.Host, vm.HostName, strings.Join(vol.Markers, ", "))
	case !vol.Exists:
		h := hint.Hint{Kind: hint.ProvideImage, Spec: fmt.Sprintf("hosts: %s: images: %q: {pool: %q, source: FILE}", vm.HostName, disk.Base, disk.Pool),
			Command: fmt.Sprintf("virsh -c %s vol-create-as %s %s SIZE --format qcow2 && virsh -c %s vol-upload --pool %s %s FILE (or copy the file into the pool's directory and run virsh pool-refresh %s)", vm.Host, disk.Pool, disk.Base, vm.Host, disk.Pool, disk.Base, disk.Pool)}
		return nil, hint.Errorf(h, "%sVM %s: disk %s starts from base volume %s, which is not in pool %s on %s (host %s)%s; nothing was changed",
			at(disk.BasePos), vm.Name, disk.Name, disk.Base, disk.Pool, vm.Host, vm.HostName, p.h.VolumesThere(disk.Pool, disk.Base))
	case vol.Backing != "" && p.image(disk) == nil:
		// A volume no domain has attached is any tenant's base, and its
		// header may be a guest's (a raw disk left in the pool): an
		// overlay on it, or a copy in its format, reads the file the
		// header names. site.cue's images are the operator's files.
		return nil, hint.Errorf(hint.Hint{Kind: hint.OtherBase, Spec: "hosts: " + vm.HostName + ": images: ..."},
			"%sVM %s: disk %s starts from base volume %s/%s on %s, which reads as a %s overlay on %q: a disk made from it would read that file too, and the header may be a guest's; nothing was changed",
			at(disk.BasePos), vm.Name, disk.Name, disk.Pool, disk.Base, vm.Host, vol.Format, vol.Backing)
	case disk.SizeBytes < vol.Capacity:
		return nil, fmt.Errorf("%sVM %s: disk %s is %s but its base %s/%s on %s holds %s: a disk is at least as large as its base; declare size: %q or more",
			at(disk.Pos), vm.Name, disk.Name, domain.SizeString(disk.SizeBytes), disk.Pool, disk.Base, vm.Host, domain.SizeString(vol.Capacity), domain.SizeString(vol.Capacity))
	}
	if err := p.refuseBaseNamingFiles(disk, vol); err != nil {
		return nil, err
	}
	if err := p.refuseCopyOfRawDisk(disk); err != nil {
		return nil, err
	}
	return &baseImage{Name: disk.Base, Path: vol.Path, Format: p.baseFormat(disk, vol), Capacity: vol.Capacity}, nil
}

// refuseCopyOfRawDisk refuses to make a disk as a copy of a base that
// a domain has attached as raw (a disk of the tenant's own VM): its
// first bytes are its guest's, and libvirt copies a volume in the
// format it last probed from them, probing again whenever anything is
// uploaded into the pool, so a header the guest writes after the plan
// read it would have qemu-img copy whatever file that header names.
// An overlay on it reads it as raw, the format it is made with.
func (p *vmPlanner) refuseCopyOfRawDisk(disk model.Disk) error {
	if !disk.Clone {
		return nil
	}
	holder, format := p.attachedAs(disk.Pool, disk.Base)
	if o := p.h.Domains[holder]; format != "raw" || o == nil || o.Owner == nil || o.Owner.Tenant != p.vm.Tenant {
		return nil // another's domain: refuseForeignBase refuses any disk made from it
	}
	vm := p.vm
	h := hint.Hint{Kind: hint.ByHand, Spec: "drop clone to make the disk an overlay on it, which reads it as raw",
		Command: "copy it with the guest shut off (qemu-img convert -f raw -O raw)"}
	return hint.Errorf(h, "%sVM %s: disk %s would be a copy of volume %s/%s on %s, which domain %s has attached as raw: libvirt would copy it in the format its guest-written header says; nothing was changed",
		at(disk.BasePos), vm.Name, disk.Name, disk.Pool, disk.Base, vm.Host, holder)
}

// baseFormat is the format a disk made from base volume vol reads it
// in: the driver type of a domain that has it attached (a raw disk of
// the tenant's own VM), else what libvirt probes. An overlay keeps the
// backing format it was made with in its header for good, and a raw
// disk's first bytes are its guest's to rewrite: read as the qcow2
// image they say today, they could name an external data file tomorrow.
func (p *vmPlanner) baseFormat(disk model.Disk, vol *storage.Volume) string {
	if f := p.definedFormat(disk.Pool, disk.Base); f != "" {
		return f
	}
	return vol.Format
}

// refuseBaseNamingFiles refuses a base whose header, read as libvirt
// probes it, names another file than its own: a disk made from it (an
// overlay whose backing format is the probed one, or a copy libvirt
// reads in that format) would read that file too. A volume no domain
// has attached is any tenant's to start from, and one a domain has is
// its guest's to write, so the header may be a guest's; site.cue's
// images are the operator's files, and a base read from the directory
// of a pool not made yet was checked there (storage, pooldir.go).
func (p *vmPlanner) refuseBaseNamingFiles(disk model.Disk, vol *storage.Volume) error {
	if p.image(disk) != nil {
		return nil
	}
	read := p.h.ProbedFiles
	if disk.Clone {
		read = p.h.CopiedFiles
	}
	why, err := read(disk.Pool, disk.Base, vol)
	if err != nil || why == "" {
		return err
	}
	vm := p.vm
	return hint.Errorf(hint.Hint{Kind: hint.OtherBase, Spec: "hosts: " + vm.HostName + ": images: ..."},
		"%sVM %s: disk %s starts from base volume %s/%s on %s, which %s: a disk made from it would read that file too, and the header may be a guest's (the start of a raw disk); nothing was changed",
		at(disk.BasePos), vm.Name, disk.Name, disk.Pool, disk.Base, vm.Host, why)
}

// image returns the base image site.cue declares for disk, or nil.
func (p *vmPlanner) image(disk model.Disk) *model.Image {
	for _, img := range p.vm.Images {
		if img.Pool.Name == disk.Pool && img.Name == disk.Base {
			return img
		}
	}
	return nil
}

// poolStepID names the step of a pool on the VM's host, for messages.
func poolStepID(vm *model.VM, pool string) string { return "pool/" + vm.Host + "/" + pool }

// planNewDisk creates a missing disk: blank, an overlay on its base, or
// a copy of it.
func (p *vmPlanner) planNewDisk(want *domain.Want, disk model.Disk, key string) error {
	o := op{Kind: OpCreateVolume, Domain: p.vm.Name, Pool: disk.Pool, Volume: disk.Name, Bytes: disk.SizeBytes}
	after := map[string]any{"size": domain.SizeString(disk.SizeBytes)}
	reason := "new disk volume for " + p.vm.Name
	format := ""
	if disk.Base != "" {
		b, err := p.base(disk)
		if err != nil {
			return err
		}
		if err := p.refuseForeignBase(disk, b.Path); err != nil {
			return err
		}
		format = o.from(b, disk.Clone)
		after["base"] = disk.Base
		reason += ": a qcow2 overlay on base " + disk.Base
		if disk.Clone {
			reason = "new disk volume for " + p.vm.Name + ": a full copy of base " + disk.Base
		}
	}
	want.Formats = append(want.Formats, format)
	p.change(key, plan.ActionCreate, plan.ImpactNone, reason, nil, after)
	p.add(o)
	return nil
}

// planRebase makes an existing disk again when the base it was made
// from is not the spec's: an overlay's backing store says what it was
// made on, a copy's own volume does not, so site's owner element
// records it. The old disk's data is lost, so it is gated, and it is
// never done under a running guest.
func (p *vmPlanner) planRebase(want *domain.Want, disk model.Disk, vol *storage.Volume, prior ownership.Volume, mine bool, key string) (bool, error) {
	vm := p.vm
	var b *baseImage
	var err error
	if disk.Base != "" && vol.Backing != "" {
		if b, err = p.base(disk); err != nil {
			return false, err
		}
	}
	was := prior.Base
	if vol.Backing != "" {
		was = filepath.Base(vol.Backing)
	}
	same := was == disk.Base
	if vol.Backing != "" {
		same = b != nil && b.Path == vol.Backing
	}
	switch {
	case same || !mine && disk.Base == "":
		return false, nil
	case !mine:
		h := hint.Hint{Kind: hint.ByHand, Spec: "drop base to use it as it is",
			Command: fmt.Sprintf("virsh -c %s vol-delete --pool %s %s, to have it made from %s", vm.Host, disk.Pool, disk.Name, disk.Base)}
		return false, hint.Errorf(h, "VM %s: volume %s/%s on %s exists but site did not make it from base %s, and site replaces only volumes it made",
			vm.Name, disk.Pool, disk.Name, vm.Host, disk.Base)
	}
	if o := p.h.Domains[vm.Name]; o != nil && o.Running {
		h := hint.Hint{Kind: hint.StopFirst, Gate: string(plan.GateVMStop), Spec: string(plan.GateVMDiskRebase)}
		return false, hint.Errorf(h, "VM %s runs on %s, and its disk %s/%s would be made again from base %q (it was made from %q): site never replaces a disk under a running guest",
			vm.Name, vm.Host, disk.Pool, disk.Name, disk.Base, was)
	}
	if disk.Base != "" && b == nil {
		if b, err = p.base(disk); err != nil {
			return false, err
		}
	}
	if b != nil {
		if err := p.refuseForeignBase(disk, b.Path); err != nil {
			return false, err
		}
	}
	reason := fmt.Sprintf("destroy and recreate: the disk was made from base %q and the spec now says %q, so it is deleted and made again; everything the guest wrote to it is lost", was, disk.Base)
	p.change(key, plan.ActionUpdate, plan.ImpactDestroy, reason, map[string]any{"base": was}, map[string]any{"base": disk.Base}, plan.GateVMDiskRebase)
	p.add(op{Kind: OpDropVolume, Gate: plan.GateVMDiskRebase, Pool: disk.Pool, Volume: disk.Name})
	o := op{Kind: OpCreateVolume, Gate: plan.GateVMDiskRebase, Domain: p.vm.Name, Pool: disk.Pool, Volume: disk.Name, Bytes: disk.SizeBytes}
	format := ""
	if b != nil {
		format = o.from(b, disk.Clone)
	}
	want.Formats = append(want.Formats, format)
	p.add(o)
	return true, nil
}

// from makes o create its volume from base b, and returns the format
// the new volume has: qcow2 for an overlay, the base's for a copy.
func (o *op) from(b *baseImage, clone bool) string {
	o.Base, o.BasePath, o.BaseFormat, o.BaseBytes, o.Clone = b.Name, b.Path, b.Format, b.Capacity, clone
	if clone {
		return b.Format
	}
	return "qcow2"
}
