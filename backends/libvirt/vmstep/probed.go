//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"

	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// refuseDiskNamingFiles refuses a disk on a volume no domain has
// attached whose header, read as libvirt probes it, names another file
// than its own: attached in that format, QEMU would read that file for
// this VM, and the header may be a guest's, written to the start of its
// raw disk (one whose domain was undefined, or that a removal kept).
func (p *vmPlanner) refuseDiskNamingFiles(disk model.Disk, vol *storage.Volume) error {
	why, err := p.h.ProbedFiles(disk.Pool, disk.Name, vol)
	if err != nil || why == "" {
		return err
	}
	h := hint.Hint{Kind: hint.AttachAsRaw, Command: fmt.Sprintf("virsh -c %s attach-disk %s %s vdX --driver qemu --subdriver raw --config", p.vm.Host, p.vm.Name, vol.Path)}
	return hint.Errorf(h, "%sVM %s on %s: volume %s/%s, which no domain has attached, %s: QEMU would read that file for this VM, and the header may be a guest's (of a raw disk); nothing was changed",
		at(disk.Pos), p.vm.Name, p.vm.Host, disk.Pool, disk.Name, why)
}

// diskCapacity is the size the guest sees of the VM's existing disk
// on vol, whose driver type is format. libvirt's capacity is that of
// the format it probes: for a raw disk whose guest wrote another
// format's header, the header's size, which the guest chose; the
// file's own size is the raw disk's.
func (p *vmPlanner) diskCapacity(disk model.Disk, vol *storage.Volume, format string) (uint64, error) {
	if format != "raw" || vol.Format == "raw" {
		return vol.Capacity, nil
	}
	return p.h.PhysicalSize(disk.Pool, disk.Name)
}

// refuseProbedResize refuses to grow a disk that libvirt reads in
// another format than its domain's: libvirt grows a volume in the
// format it probes (qemu-img resize for all but raw), which for a raw
// disk is its guest's header, and qemu-img follows the files such a
// header names, growing an external data file (another tenant's disk,
// any file of the host) to the new size.
func (p *vmPlanner) refuseProbedResize(disk model.Disk, vol *storage.Volume, format string) error {
	if format == "" || format == vol.Format {
		return nil
	}
	h := hint.Hint{Kind: hint.ByHand, Spec: "declare its size as it is",
		Command: fmt.Sprintf("grow the file as %s (qemu-img resize -f %s %s SIZE, then virsh -c %s pool-refresh %s)", format, format, vol.Path, p.vm.Host, disk.Pool)}
	return hint.Errorf(h, "%sVM %s on %s: disk %s/%s is %s in its domain's definition, but libvirt reads the volume as %s (from its guest-written header) and would grow it so; nothing was changed",
		at(disk.Pos), p.vm.Name, p.vm.Host, disk.Pool, disk.Name, format, vol.Format)
}
