//go:build cgo && libvirt_dlopen

package vmstep

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// The volumes of a VM step: its disks, its cloud-init seed, and the
// volumes site made for it that the spec no longer wants.

// planDisks creates the disks that are missing (blank, or from their
// base image), makes a disk again behind a gate when the spec changed
// its base, grows them behind a gate, and never shrinks one.
func (p *vmPlanner) planDisks(want *domain.Want, owned map[string]ownership.Volume) error {
	for _, disk := range p.vm.Disks {
		if err := p.planDisk(want, disk, owned); err != nil {
			return err
		}
	}
	return nil
}

// planDisk plans one disk: it refuses a volume the VM may not take,
// and plans one that could not be read or is missing; planExistingDisk
// plans the rest.
func (p *vmPlanner) planDisk(want *domain.Want, disk model.Disk, owned map[string]ownership.Volume) error {
	vm := p.vm
	vol, err := p.h.DeclaredVolume(disk.Pool, disk.Name, p.declared(disk.Pool))
	if np := (storage.NoPoolError{}); errors.As(err, &np) && np.Why == storage.PoolMissing {
		return hint.Enclose(fmt.Sprintf("%sVM %s: disk %s: ", at(disk.Pos), vm.Name, disk.Name), err, p.h.PoolsThere(disk.Pool))
	}
	if errors.As(err, new(storage.UnlistedError)) {
		return fmt.Errorf("%sVM %s: disk %s: %w", at(disk.Pos), vm.Name, disk.Name, err)
	}
	if err != nil {
		return err
	}
	p.seen = append(p.seen, disk.Pool, disk.Name, strconv.FormatBool(vol.Exists), strconv.FormatUint(vol.Capacity, 10), vol.Format, vol.Backing, vol.NoPool)
	p.notRead(disk.Pool, vol)
	attached := p.attachedHere(disk.Pool, disk.Name, vol.Path)
	if !attached {
		if err := p.refuseForeignDisk(disk, vol.Path); err != nil {
			return err
		}
		if err := p.refuseLeftDisk(disk, vol.Path); err != nil {
			return err
		}
	}
	ov := ownership.Volume{Pool: disk.Pool, Name: disk.Name, Role: "disk", Base: disk.Base}
	prior, mine := owned[ov.Key()]
	key := storage.VolumeKey(vm.Host, disk.Pool, disk.Name)
	if vol.Unread() {
		if err := p.planUnreadDisk(want, disk, vol, key, attached); err != nil {
			return err
		}
		switch {
		case mine:
			want.Owner.Volumes = append(want.Owner.Volumes, prior) // as it is until it can be read
		case p.h.Domains[vm.Name] == nil:
			want.Owner.Volumes = append(want.Owner.Volumes, ov)
		}
		return nil
	}
	if !vol.Exists {
		if err := p.planNewDisk(want, disk, key); err != nil {
			return err
		}
		want.Owner.Volumes = append(want.Owner.Volumes, ov)
		return nil
	}
	return p.planExistingDisk(want, disk, vol, ov, prior, mine, key)
}

// planExistingDisk plans a disk whose volume exists: made again on a
// new base, or grown, never shrunk; ov is what the owner element
// records of it, prior what it recorded (mine: it did).
func (p *vmPlanner) planExistingDisk(want *domain.Want, disk model.Disk, vol *storage.Volume, ov, prior ownership.Volume, mine bool, key string) error {
	vm := p.vm
	if err := p.refuseProbedOverlay(disk, vol, mine); err != nil {
		return err
	}
	rebased, err := p.planRebase(want, disk, vol, prior, mine, key)
	if err != nil {
		return err
	}
	if rebased {
		want.Owner.Volumes = append(want.Owner.Volumes, ov)
		return nil
	}
	format, err := p.diskFormat(disk, vol)
	if err != nil {
		return err
	}
	want.Formats = append(want.Formats, format)
	capacity, err := p.diskCapacity(disk, vol, format)
	if err != nil {
		return err
	}
	switch {
	case capacity < disk.SizeBytes:
		if err := p.refuseProbedResize(disk, vol, format); err != nil {
			return err
		}
		p.change(key, plan.ActionUpdate, plan.ImpactNextBoot, "grow the disk volume; the guest sees the new size after its next boot and must grow its file system itself",
			map[string]any{"size": domain.SizeString(capacity)}, map[string]any{"size": domain.SizeString(disk.SizeBytes)}, plan.GateVMDiskResize)
		p.add(op{Kind: OpResizeVolume, Gate: plan.GateVMDiskResize, Pool: disk.Pool, Volume: disk.Name, Bytes: disk.SizeBytes, Format: vol.Format})
	case capacity > disk.SizeBytes:
		return fmt.Errorf("VM %s: volume %s/%s on %s holds %s but the spec declares %s: site never shrinks a volume (data would be lost); declare its real size, %q",
			vm.Name, disk.Pool, disk.Name, vm.Host, domain.SizeString(capacity), domain.SizeString(disk.SizeBytes), domain.SizeString(capacity))
	}
	if mine {
		want.Owner.Volumes = append(want.Owner.Volumes, ov)
	}
	return nil
}

// planUnreadDisk shows a disk in a declared pool that exists but does
// not run: whether the disk exists, and how large it is, cannot be read
// until the pool's step starts the pool, so the plan claims neither a
// create nor a resize, and Apply plans the disk then. A base is still
// checked now, as far as it can be (a declared image by its file), so a
// disk that cannot be made blocks the step before anything changes; and
// unless the VM has the disk attached already, so is whether another
// tenant's domain has that base.
func (p *vmPlanner) planUnreadDisk(want *domain.Want, disk model.Disk, vol *storage.Volume, key string, attached bool) error {
	format := p.definedFormat(disk.Pool, disk.Name)
	if disk.Base != "" {
		b, err := p.base(disk)
		if err != nil {
			return err
		}
		if !attached {
			if err := p.refuseForeignBase(disk, b.Path); err != nil {
				return err
			}
		}
		if format == "" {
			format = (&op{}).from(b, disk.Clone)
		}
	}
	want.Formats = append(want.Formats, format)
	p.unreadVolume(key, disk.Pool, "disk volume of "+p.vm.Name, vol)
	return nil
}

// unreadVolume is the change that shows vol, a volume whose pool is not
// active, or does not exist yet and whose directory site could not
// read: unknown now, read once the pool's step has started or made the
// pool.
func (p *vmPlanner) unreadVolume(key, pool, what string, vol *storage.Volume) {
	before, after := storage.UnreadValues(pool, vol)
	p.change(key, plan.ActionUpdate, plan.ImpactNone, storage.UnreadReason(pool, what, vol), before, after)
}

// definedFormat is the driver type a domain's definition gives the
// disk on volume pool/name: the VM's own domain's (persistent, else
// live), else that of another domain on the host that has the volume
// attached (a disk the tenant moves from one of its VMs to another);
// "" when none has it. It is what an unread volume keeps until it can
// be read, and what a disk keeps whatever libvirt probes: the format
// libvirt reads from a file's first bytes is, on a raw disk, whatever
// its guest wrote there, and a qcow2 header has QEMU follow it to any
// backing file it names.
func (p *vmPlanner) definedFormat(pool, name string) string {
	_, format := p.attachedAs(pool, name)
	return format
}

// attachedAs is the domain whose definition has volume pool/name as a
// disk (the VM's own first) and the driver type it gives it; "", ""
// when none has.
func (p *vmPlanner) attachedAs(pool, name string) (domain, format string) {
	for _, n := range append([]string{p.vm.Name}, p.h.DomainNames()...) {
		o := p.h.Domains[n]
		if o == nil {
			continue
		}
		for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
			if t := driverType(def, pool, name); t != "" {
				return n, t
			}
		}
	}
	return "", ""
}

// driverType is the driver type def gives its disk on volume pool/name,
// "" when it has none there.
func driverType(def *libvirtxml.Domain, pool, name string) string {
	if def == nil || def.Devices == nil {
		return ""
	}
	for _, d := range def.Devices.Disks {
		if d.Source != nil && d.Source.Volume != nil && d.Source.Volume.Pool == pool && d.Source.Volume.Volume == name && d.Driver != nil {
			return d.Driver.Type
		}
	}
	return ""
}

// diskFormat is the driver type the VM's disk on the existing volume
// vol gets: a definition's, else what libvirt probes, unless that
// header names other files (storage, probed.go).
func (p *vmPlanner) diskFormat(disk model.Disk, vol *storage.Volume) (string, error) {
	if f := p.definedFormat(disk.Pool, disk.Name); f != "" {
		return f, nil
	}
	if err := p.refuseDiskNamingFiles(disk, vol); err != nil {
		return "", err
	}
	return vol.Format, nil
}

// refuseProbedOverlay refuses a disk that declares no base on a volume
// site did not make for the VM, that no domain has attached and whose
// header makes it an overlay: attached with the format libvirt probes,
// QEMU would read the backing file the header names for this VM, and
// the header may be a guest's, written to the start of its raw disk
// (one whose domain was undefined by hand, or whose pool was remade
// over its files), naming another tenant's disk or any file of the
// host.
func (p *vmPlanner) refuseProbedOverlay(disk model.Disk, vol *storage.Volume, mine bool) error {
	if mine || disk.Base != "" || vol.Backing == "" || p.definedFormat(disk.Pool, disk.Name) != "" {
		return nil
	}
	h := hint.Hint{Kind: hint.AttachAsRaw, Spec: "base: a volume of pool " + disk.Pool,
		Command: fmt.Sprintf("virsh -c %s attach-disk %s %s vdX --driver qemu --subdriver raw --config", p.vm.Host, p.vm.Name, vol.Path)}
	return hint.Errorf(h, "%sVM %s on %s: volume %s/%s (not site's, attached to no domain) reads as a %s overlay on %q, with no base declared: QEMU would read that file, and the header may be a guest's; nothing was changed",
		at(disk.Pos), p.vm.Name, p.vm.Host, disk.Pool, disk.Name, vol.Format, vol.Backing)
}

// declared is the pool of that name site.cue declares on the VM's host,
// nil when it declares none.
func (p *vmPlanner) declared(pool string) *model.Pool {
	for _, dp := range p.vm.Pools {
		if dp.Name == pool {
			return dp
		}
	}
	return nil
}

// planSeed uploads the cloud-init seed when the pool lacks it. The seed
// is content addressed: uploaded once, never replaced.
func (p *vmPlanner) planSeed(want *domain.Want) error {
	vm := p.vm
	if vm.CloudInit == nil {
		return nil
	}
	s := vmSeed(vm)
	want.SeedPool, want.SeedName, want.SeedIID = seedPool(vm), s.Name, s.InstanceID
	vol, err := p.h.Uploaded(want.SeedPool, s.Name, p.declared(want.SeedPool))
	if err != nil {
		return err
	}
	p.seen = append(p.seen, s.Name, strconv.FormatBool(vol.Exists), strconv.FormatBool(vol.Partial), vol.NoPool)
	p.notRead(want.SeedPool, vol)
	want.Owner.Volumes = append(want.Owner.Volumes, ownership.Volume{Pool: want.SeedPool, Name: s.Name, Role: "seed"})
	if vol.Unread() {
		p.unreadVolume(storage.VolumeKey(vm.Host, want.SeedPool, s.Name), want.SeedPool, "cloud-init seed ("+s.InstanceID+")", vol)
		return nil
	}
	if !vol.Exists {
		reason := "cloud-init seed (" + s.InstanceID + ") uploaded into the pool"
		if vol.Partial {
			reason += storage.PartialReason(vol.Markers)
		}
		p.change(storage.VolumeKey(vm.Host, want.SeedPool, s.Name), plan.ActionCreate, plan.ImpactNone,
			reason, nil, map[string]any{"size": domain.SizeString(uint64(len(s.ISO)))})
		p.add(op{Kind: OpUploadSeed, Pool: want.SeedPool, Volume: s.Name, ISO: s.ISO})
	}
	return nil
}

// vmSeed is the cloud-init seed of vm, which has cloudinit.
func vmSeed(vm *model.VM) *seed.Seed {
	ci := vm.CloudInit
	return seed.Build(seed.Input{Hostname: vm.Name, UserData: ci.UserData, MetaData: ci.MetaData, NetworkConfig: ci.NetworkConfig})
}

// seedPool is where a VM's seed goes: its first disk's pool, else the
// pool named "default".
func seedPool(vm *model.VM) string {
	if len(vm.Disks) > 0 {
		return vm.Disks[0].Pool
	}
	return "default"
}

// planUnwantedVolumes handles the volumes site made for the VM that the
// spec no longer wants: they stay listed in the owner element while any
// definition uses them, and are deleted otherwise.
func (p *vmPlanner) planUnwantedVolumes(o *domObs, want *domain.Want, owned map[string]ownership.Volume) {
	vm := p.vm
	wanted := map[string]bool{}
	for _, ov := range want.Owner.Volumes {
		wanted[ov.Key()] = true
	}
	// A guest that this apply restarts or stops lets go of its live
	// definition's volumes before the deletes run.
	goesDown := o != nil && o.Running && (!vm.Running || p.run.Restart[vm.Tenant+"/"+vm.Name])
	refs := p.h.VolumeRefs(vm.Name, goesDown)
	for _, k := range slices.Sorted(maps.Keys(owned)) {
		ov := owned[k]
		if wanted[k] {
			continue
		}
		if by := refs[k]; len(by) > 0 {
			want.Owner.Volumes = append(want.Owner.Volumes, ov)
			continue // deleted by a later run, once nothing uses it
		}
		key := storage.VolumeKey(vm.Host, ov.Pool, ov.Name)
		if ov.Role == "seed" {
			p.change(key, plan.ActionDelete, plan.ImpactNone, "seed volume no definition references any more", map[string]any{"role": "seed"}, nil)
			p.add(op{Kind: OpDeleteVolume, Pool: ov.Pool, Volume: ov.Name})
			continue
		}
		p.change(key, plan.ActionDelete, plan.ImpactDestroy, "disk volume the spec no longer declares: its data is lost", map[string]any{"role": "disk"}, nil, plan.GateVMDestroy)
		p.add(op{Kind: OpDeleteVolume, Gate: plan.GateVMDestroy, Pool: ov.Pool, Volume: ov.Name})
	}
}
