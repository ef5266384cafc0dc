//go:build cgo && libvirt_dlopen

package domain

import (
	"fmt"
	"slices"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/ownership"
)

// Shape is the projection of a domain definition on what site manages;
// two definitions with equal shapes need no change.
type Shape struct {
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

func ShapeOf(def *libvirtxml.Domain, o *ownership.Owner) Shape {
	var s Shape
	if def.Memory != nil {
		s.MemoryKiB = ToKiB(def.Memory.Value, def.Memory.Unit)
	}
	s.CurrentKiB = s.MemoryKiB
	if def.CurrentMemory != nil {
		s.CurrentKiB = ToKiB(def.CurrentMemory.Value, def.CurrentMemory.Unit)
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

func ToKiB(v uint, unit string) uint {
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

// Field is one compared attribute of a shape.
type Field struct {
	Name   string
	Before string
	After  string
}

// Diff lists the attributes that differ between a and b, in a
// fixed order. NIC MACs that b (the wanted side) leaves to libvirt are
// not compared.
func Diff(a, b Shape) []Field {
	var out []Field
	add := func(name, x, y string) {
		if x != y {
			out = append(out, Field{name, x, y})
		}
	}
	add("memory", fmt.Sprintf("max %s, current %s", KiBString(a.MemoryKiB), KiBString(a.CurrentKiB)),
		fmt.Sprintf("max %s, current %s", KiBString(b.MemoryKiB), KiBString(b.CurrentKiB)))
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
		out = append(out, Field{"nics", nicsShown(an), nicsShown(b.NICs)})
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

func KiBString(k uint) string { return SizeString(uint64(k) * 1024) }

// SizeString writes a size in bytes as the spec writes it, in the
// largest binary unit that holds it exactly ("2GiB", "366KiB"), so a
// diff reads like the spec and not like a byte count.
func SizeString(b uint64) string {
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
