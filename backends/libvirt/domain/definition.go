//go:build cgo && libvirt_dlopen

package domain

import (
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/network"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

// Device names site gives the disks it manages: virtio disks vda, vdb, …
// in declaration order and the seed cdrom on a virtio-scsi controller.
// Not SATA: Debian's cloud kernel (linux-image-cloud-amd64, the kernel
// of its genericcloud images) has no AHCI driver and never sees a SATA
// cdrom, while every kernel with virtio has virtio-scsi; and not IDE,
// which the q35 machine type lacks.
const (
	seedTarget = "sda"
	seedBus    = "scsi"
)

func diskTarget(i int) string { return "vd" + string(rune('a'+i)) }

// Want is what site wants of one domain.
type Want struct {
	VM       *model.VM
	Formats  []string // per disk: the volume's format, "raw" for new ones
	SeedPool string   // "" without cloudinit
	SeedName string
	SeedIID  string // the seed's instance-id
	Owner    *ownership.Owner
}

// New is the skeleton a new domain starts from; Apply then fills in
// everything site manages.
func New(name, domType string) *libvirtxml.Domain {
	return &libvirtxml.Domain{
		Type: domType,
		Name: name,
		OS: &libvirtxml.DomainOS{
			Type:        &libvirtxml.DomainOSType{Type: "hvm"},
			BootDevices: []libvirtxml.DomainBootDevice{{Dev: "hd"}},
		},
		Devices: &libvirtxml.DomainDeviceList{},
	}
}

// Apply writes what site manages into def (a copy of the persistent
// definition, or a new skeleton) and keeps everything else: UUID, MAC
// addresses, PCI addresses, controllers, other applications' metadata.
// Devices are matched by target (disks) or position (NICs) so that a
// redefine does not move them around in the guest.
func (w *Want) Apply(def *libvirtxml.Domain, others string) {
	def.Name = w.VM.Name // a renamed domain's definition has its old name
	kib := uint((w.VM.MemoryBytes + 1023) / 1024)
	def.Memory = &libvirtxml.DomainMemory{Value: kib, Unit: "KiB"}
	def.CurrentMemory = &libvirtxml.DomainCurrentMemory{Value: kib, Unit: "KiB"}
	def.VCPU = &libvirtxml.DomainVCPU{Placement: "static", Value: uint(w.VM.VCPUs)}
	def.Metadata = &libvirtxml.DomainMetadata{XML: w.Owner.MetadataXML(others)}
	if def.Devices == nil {
		def.Devices = &libvirtxml.DomainDeviceList{}
	}

	old := map[string]libvirtxml.DomainDisk{}
	var kept []libvirtxml.DomainDisk
	for _, d := range def.Devices.Disks {
		if d.Target != nil && (d.Device == "disk" || d.Device == "cdrom" || d.Device == "") {
			old[d.Target.Dev] = d
			continue
		}
		kept = append(kept, d) // floppies, LUNs: not site's business
	}
	disks := kept
	for i, want := range w.VM.Disks {
		format := "raw"
		if i < len(w.Formats) && w.Formats[i] != "" {
			format = w.Formats[i]
		}
		disks = append(disks, mergeDisk(old[diskTarget(i)], "disk", diskTarget(i), "virtio", format, want.Pool, want.Name))
	}
	if w.SeedName != "" {
		disks = append(disks, mergeDisk(old[seedTarget], "cdrom", seedTarget, seedBus, "raw", w.SeedPool, w.SeedName))
		ensureVirtioSCSI(def.Devices)
	}
	def.Devices.Disks = disks

	var ifaces []libvirtxml.DomainInterface
	for i, nic := range w.VM.NICs {
		var cur libvirtxml.DomainInterface
		if i < len(def.Devices.Interfaces) {
			cur = def.Devices.Interfaces[i]
		}
		cur.Source = &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: nic.Network}}
		cur.Model = &libvirtxml.DomainInterfaceModel{Type: "virtio"}
		if mac := network.MAC(w.VM, i); mac != "" {
			cur.MAC = &libvirtxml.DomainInterfaceMAC{Address: mac}
		}
		ifaces = append(ifaces, cur)
	}
	def.Devices.Interfaces = ifaces
}

// ensureVirtioSCSI adds a virtio-scsi controller for the seed when the
// domain has no SCSI controller 0: left to itself libvirt would add an
// LSI one, which few cloud kernels drive. One that is there already
// stays as it is, whatever its model: other disks may sit on it.
func ensureVirtioSCSI(devs *libvirtxml.DomainDeviceList) {
	for _, c := range devs.Controllers {
		if c.Type == "scsi" && (c.Index == nil || *c.Index == 0) {
			return
		}
	}
	zero := uint(0)
	devs.Controllers = append(devs.Controllers, libvirtxml.DomainController{Type: "scsi", Index: &zero, Model: "virtio-scsi"})
}

// mergeDisk points a disk (the existing one at that target, or a new one)
// at a volume, keeping its address and other settings.
func mergeDisk(d libvirtxml.DomainDisk, device, target, bus, format, pool, vol string) libvirtxml.DomainDisk {
	d.Device = device
	d.Driver = &libvirtxml.DomainDiskDriver{Name: "qemu", Type: format}
	src := &libvirtxml.DomainDiskSource{Volume: &libvirtxml.DomainDiskSourceVolume{Pool: pool, Volume: vol}}
	d.ReadOnly = nil
	if device == "cdrom" {
		// A seed that went missing must never keep a guest from booting.
		src.StartupPolicy = "optional"
		d.ReadOnly = &libvirtxml.DomainDiskReadOnly{}
	}
	d.Source = src
	if d.Target == nil || d.Target.Bus != bus {
		d.Address = nil // a bus change needs a new address
	}
	d.Target = &libvirtxml.DomainDiskTarget{Dev: target, Bus: bus}
	d.BackingStore = nil
	return d
}
