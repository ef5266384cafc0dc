package compiler

import "github.com/site-tools/site/compiler/model"

// stubTenant is t cut down to what the checks between tenants read of a
// neighbour (claimResources, claimVolumes, separateNetworks,
// uniqueMACs, and the zone names the record checks look other tenants'
// zones up by): names, hosts, positions, disks, prefixes and MACs. Its
// zones hold no records.
func stubTenant(t *model.Tenant) *model.Tenant {
	s := &model.Tenant{Name: t.Name, Pos: t.Pos}
	for _, z := range t.Zones {
		s.Zones = append(s.Zones, &model.Zone{Tenant: z.Tenant, Name: z.Name, DNSSEC: z.DNSSEC, Pos: z.Pos})
	}
	for _, n := range t.Networks {
		s.Networks = append(s.Networks, &model.Network{Tenant: n.Tenant, Name: n.Name, HostName: n.HostName, Host: n.Host, CIDR: n.CIDR, Pos: n.Pos})
	}
	for _, v := range t.VMs {
		sv := &model.VM{Tenant: v.Tenant, Name: v.Name, HostName: v.HostName, Host: v.Host, Pos: v.Pos}
		for _, d := range v.Disks {
			sv.Disks = append(sv.Disks, model.Disk{Pool: d.Pool, Name: d.Name, Base: d.Base, Pos: d.Pos, BasePos: d.BasePos})
		}
		for _, n := range v.NICs {
			sv.NICs = append(sv.NICs, model.NIC{MAC: n.MAC})
		}
		s.VMs = append(s.VMs, sv)
	}
	return s
}

// writeStub writes what stubTenant keeps of t.
func writeStub(w *entryWriter, t *model.Tenant) {
	w.str(t.Name)
	writePos(w, t.Pos)
	w.uint(uint64(len(t.Zones)))
	for _, z := range t.Zones {
		writeStrs(w, z.Tenant, z.Name)
		writePos(w, z.Pos)
		w.uint(boolBit(z.DNSSEC))
	}
	w.uint(uint64(len(t.Networks)))
	for _, n := range t.Networks {
		writeStrs(w, n.Tenant, n.Name, n.HostName, n.Host, n.CIDR)
		writePos(w, n.Pos)
	}
	w.uint(uint64(len(t.VMs)))
	for _, v := range t.VMs {
		writeStrs(w, v.Tenant, v.Name, v.HostName, v.Host)
		writePos(w, v.Pos)
		w.uint(uint64(len(v.Disks)))
		for _, d := range v.Disks {
			writeStrs(w, d.Pool, d.Name, d.Base)
			writePos(w, d.Pos)
			writePos(w, d.BasePos)
		}
		w.uint(uint64(len(v.NICs)))
		for _, n := range v.NICs {
			w.str(n.MAC)
		}
	}
}

// writePos writes p; a position in the file itself (nearly every one)
// is written without its name: the index is read on every load of
// every other tenant.
func writePos(w *entryWriter, p model.Pos) {
	if p.File != "" && p.File == w.file {
		w.uint(1)
	} else {
		w.uint(0)
		w.str(p.File)
	}
	w.uint(uint64(p.Line))
	w.uint(uint64(p.Col))
}

func readPos(r *entryReader) model.Pos {
	var p model.Pos
	switch r.uint() {
	case 0:
		p.File = r.str()
	case 1:
		p.File = r.file
	default:
		r.ok = false
	}
	p.Line, p.Col = r.smallInt(), r.smallInt()
	return p
}

// readStub reads what writeStub wrote; r.ok is false when it does not
// read back. The zones are carved from one slice: a neighbour's index
// is read for every load of every other tenant.
func readStub(r *entryReader) *model.Tenant {
	t := &model.Tenant{Name: r.str(), Pos: readPos(r)}
	n := r.count()
	zones := make([]model.Zone, n)
	t.Zones = make([]*model.Zone, n)
	for i := range zones {
		zones[i] = model.Zone{Tenant: r.str(), Name: r.str()}
		zones[i].Pos = readPos(r)
		zones[i].DNSSEC = r.uint() == 1
		t.Zones[i] = &zones[i]
	}
	if n = r.count(); n > 0 {
		t.Networks = make([]*model.Network, n)
	}
	for i := range t.Networks {
		t.Networks[i] = &model.Network{Tenant: r.str(), Name: r.str(), HostName: r.str(), Host: r.str(), CIDR: r.str(), Pos: readPos(r)}
	}
	if n = r.count(); n > 0 {
		t.VMs = make([]*model.VM, n)
	}
	for i := range t.VMs {
		v := &model.VM{Tenant: r.str(), Name: r.str(), HostName: r.str(), Host: r.str(), Pos: readPos(r)}
		if n := r.count(); n > 0 {
			v.Disks = make([]model.Disk, n)
		}
		for j := range v.Disks {
			v.Disks[j] = model.Disk{Pool: r.str(), Name: r.str(), Base: r.str(), Pos: readPos(r), BasePos: readPos(r)}
		}
		if n := r.count(); n > 0 {
			v.NICs = make([]model.NIC, n)
		}
		for j := range v.NICs {
			v.NICs[j].MAC = r.str()
		}
		t.VMs[i] = v
	}
	return t
}

func writeStrs(w *entryWriter, ss ...string) {
	for _, s := range ss {
		w.str(s)
	}
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
