//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"slices"
	"strings"

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

// wantDomain is what site wants of one domain.
type wantDomain struct {
	vm       *model.VM
	formats  []string // per disk: the volume's format, "raw" for new ones
	seedPool string   // "" without cloudinit
	seedName string
	seedIID  string // the seed's instance-id
	owner    *ownership.Owner
}

// newDomain is the skeleton a new domain starts from; apply then fills in
// everything site manages.
func newDomain(name, domType string) *libvirtxml.Domain {
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

// apply writes what site manages into def (a copy of the persistent
// definition, or a new skeleton) and keeps everything else: UUID, MAC
// addresses, PCI addresses, controllers, other applications' metadata.
// Devices are matched by target (disks) or position (NICs) so that a
// redefine does not move them around in the guest.
func (w *wantDomain) apply(def *libvirtxml.Domain, others string) {
	def.Name = w.vm.Name // a renamed domain's definition has its old name
	kib := uint((w.vm.MemoryBytes + 1023) / 1024)
	def.Memory = &libvirtxml.DomainMemory{Value: kib, Unit: "KiB"}
	def.CurrentMemory = &libvirtxml.DomainCurrentMemory{Value: kib, Unit: "KiB"}
	def.VCPU = &libvirtxml.DomainVCPU{Placement: "static", Value: uint(w.vm.VCPUs)}
	def.Metadata = &libvirtxml.DomainMetadata{XML: w.owner.MetadataXML(others)}
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
	for i, want := range w.vm.Disks {
		format := "raw"
		if i < len(w.formats) && w.formats[i] != "" {
			format = w.formats[i]
		}
		disks = append(disks, mergeDisk(old[diskTarget(i)], "disk", diskTarget(i), "virtio", format, want.Pool, want.Name))
	}
	if w.seedName != "" {
		disks = append(disks, mergeDisk(old[seedTarget], "cdrom", seedTarget, seedBus, "raw", w.seedPool, w.seedName))
		ensureVirtioSCSI(def.Devices)
	}
	def.Devices.Disks = disks

	var ifaces []libvirtxml.DomainInterface
	for i, nic := range w.vm.NICs {
		var cur libvirtxml.DomainInterface
		if i < len(def.Devices.Interfaces) {
			cur = def.Devices.Interfaces[i]
		}
		cur.Source = &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: nic.Network}}
		cur.Model = &libvirtxml.DomainInterfaceModel{Type: "virtio"}
		if mac := network.MAC(w.vm, i); mac != "" {
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

// shape is the projection of a domain definition on what site manages;
// two definitions with equal shapes need no change.
type shape struct {
	MemoryKiB  uint // <memory>, the maximum
	CurrentKiB uint // <currentMemory>
	MaxVCPUs   uint
	VCPUs      uint
	Disks      []string // "vda virtio default/keys-root"
	CDROMs     []string // "sda sata default/seed-….iso"
	NICs       []string // "network=lan model=virtio mac=…"
	Owner      string
	Balloon    bool
}

func shapeOf(def *libvirtxml.Domain, o *ownership.Owner) shape {
	var s shape
	if def.Memory != nil {
		s.MemoryKiB = toKiB(def.Memory.Value, def.Memory.Unit)
	}
	s.CurrentKiB = s.MemoryKiB
	if def.CurrentMemory != nil {
		s.CurrentKiB = toKiB(def.CurrentMemory.Value, def.CurrentMemory.Unit)
	}
	if def.VCPU != nil {
		s.MaxVCPUs, s.VCPUs = def.VCPU.Value, def.VCPU.Value
		if def.VCPU.Current != 0 {
			s.VCPUs = def.VCPU.Current
		}
	}
	s.Owner = o.String()
	if def.Devices == nil {
		return s
	}
	s.Balloon = def.Devices.MemBalloon != nil && def.Devices.MemBalloon.Model != "none"
	for _, d := range def.Devices.Disks {
		line := diskLine(d)
		switch d.Device {
		case "cdrom":
			s.CDROMs = append(s.CDROMs, line)
		case "disk", "":
			s.Disks = append(s.Disks, line)
		}
	}
	for _, n := range def.Devices.Interfaces {
		s.NICs = append(s.NICs, nicLine(n))
	}
	return s
}

func diskLine(d libvirtxml.DomainDisk) string {
	var tgt, bus string
	if d.Target != nil {
		tgt, bus = d.Target.Dev, d.Target.Bus
	}
	src := "empty"
	if d.Source != nil {
		switch {
		case d.Source.Volume != nil:
			src = d.Source.Volume.Pool + "/" + d.Source.Volume.Volume
		case d.Source.File != nil:
			src = "file:" + d.Source.File.File
		case d.Source.Block != nil:
			src = "block:" + d.Source.Block.Dev
		}
	}
	return tgt + " " + bus + " " + src
}

func nicLine(n libvirtxml.DomainInterface) string {
	src := "other"
	if n.Source != nil && n.Source.Network != nil {
		src = "network=" + n.Source.Network.Network
	}
	model := ""
	if n.Model != nil {
		model = n.Model.Type
	}
	mac := ""
	if n.MAC != nil {
		mac = strings.ToLower(n.MAC.Address)
	}
	return src + " model=" + model + " mac=" + mac
}

func toKiB(v uint, unit string) uint {
	switch strings.ToLower(unit) {
	case "", "k", "kib":
		return v
	case "b", "bytes":
		return (v + 1023) / 1024
	case "kb":
		return v * 1000 / 1024
	case "m", "mib":
		return v * 1024
	case "mb":
		return v * 1000 * 1000 / 1024
	case "g", "gib":
		return v * 1024 * 1024
	case "gb":
		return v * 1000 * 1000 * 1000 / 1024
	}
	return v
}

// field is one compared attribute of a shape.
type field struct {
	Name   string
	Before string
	After  string
}

// diffShapes lists the attributes that differ between a and b, in a
// fixed order. NIC MACs that b (the wanted side) leaves to libvirt are
// not compared.
func diffShapes(a, b shape) []field {
	var out []field
	add := func(name, x, y string) {
		if x != y {
			out = append(out, field{name, x, y})
		}
	}
	add("memory", fmt.Sprintf("max %s, current %s", kibString(a.MemoryKiB), kibString(a.CurrentKiB)),
		fmt.Sprintf("max %s, current %s", kibString(b.MemoryKiB), kibString(b.CurrentKiB)))
	add("vcpus", fmt.Sprintf("%d of max %d", a.VCPUs, a.MaxVCPUs), fmt.Sprintf("%d of max %d", b.VCPUs, b.MaxVCPUs))
	add("disks", strings.Join(a.Disks, "; "), strings.Join(b.Disks, "; "))
	add("cdroms", strings.Join(a.CDROMs, "; "), strings.Join(b.CDROMs, "; "))
	an := slices.Clone(a.NICs)
	for i := range an {
		if i < len(b.NICs) && strings.HasSuffix(b.NICs[i], " mac=") {
			an[i] = an[i][:strings.LastIndex(an[i], " mac=")+5]
		}
	}
	if x, y := strings.Join(an, "; "), strings.Join(b.NICs, "; "); x != y {
		out = append(out, field{"nics", nicsShown(an), nicsShown(b.NICs)})
	}
	add("owner", a.Owner, b.Owner)
	return out
}

// nicsShown writes NIC lines for a plan: a MAC left to libvirt reads as
// such, not as an empty "mac=", and no NICs as "(none)".
func nicsShown(nics []string) string {
	if len(nics) == 0 {
		return "(none)"
	}
	shown := make([]string, len(nics))
	for i, n := range nics {
		if strings.HasSuffix(n, " mac=") {
			n += "(libvirt's)"
		}
		shown[i] = n
	}
	return strings.Join(shown, "; ")
}

func kibString(k uint) string { return sizeString(uint64(k) * 1024) }

// sizeString writes a size in bytes as the spec writes it, in the
// largest binary unit that holds it exactly ("2GiB", "366KiB"), so a
// diff reads like the spec and not like a byte count.
func sizeString(b uint64) string {
	for _, u := range []struct {
		name string
		size uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b > 0 && b%u.size == 0 {
			return fmt.Sprintf("%d%s", b/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", b)
}
