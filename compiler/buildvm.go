// This file builds a tenant's networks and VMs (and the records a VM
// publishes) into the model, for builder.tenant.

package compiler

import (
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

func (b *builder) network(tenant string, g *grant, np []string, name string, raw *rawNetwork) *model.Network {
	n := &model.Network{Tenant: tenant, Name: name, HostName: raw.Host, Mode: model.NetMode(raw.Mode), Autostart: raw.Autostart, Pos: b.pos.pos(np...)}
	n.Host = b.host(tenant, g, at(np, "host"), raw.Host)
	if !libvirtName.MatchString(name) {
		b.errorf(np, "network name %q: use letters, digits, '-', '_', '.' and '+', at most 63 characters", name)
	}
	if n.Mode != model.NetBridge {
		if raw.Bridge != "" {
			b.errorf(at(np, "bridge"), "bridge is for mode: \"bridge\" only; a %s network gets a bridge of libvirt's own: remove bridge, or set mode: \"bridge\" to use host bridge %s", n.Mode, raw.Bridge)
		}
		n.CIDR = b.cidr(at(np, "cidr"), raw.CIDR)
		if n.CIDR != "" && !b.addressSpace(tenant, g, at(np, "cidr"), n) {
			// A prefix not the tenant's takes nothing: the networks
			// it would overlap are not reported for it.
			n.CIDR = ""
		}
		b.endpointsIn(tenant, at(np, "cidr"), n)
		return n
	}
	if raw.CIDR != "" {
		b.errorf(at(np, "cidr"), "a bridge network has no cidr: its guests are on the LAN of host bridge %s, where libvirt serves no DHCP; remove cidr (use mode: \"isolated\" or \"nat\" for a network libvirt addresses)", raw.Bridge)
	}
	switch {
	case !isInterfaceName(raw.Bridge):
		b.errorf(at(np, "bridge"), "bridge %q is not a Linux interface name: 1 to 15 bytes, not \".\" or \"..\", none of them '/', ':' or white space", raw.Bridge)
	case n.Host != "": // else the host is not granted, and that is the error
		b.bridge(tenant, g, at(np, "bridge"), raw.Host, raw.Bridge)
	}
	n.Bridge = raw.Bridge
	return n
}

// isInterfaceName reports whether Linux takes name as an interface
// name: dev_valid_name allows at most IFNAMSIZ-1 bytes (not runes: a
// name of 15 accented letters is 30 bytes), and refuses "." and "..",
// '/', ':' and white space.
func isInterfaceName(name string) bool {
	return len(name) <= 15 && name != "." && name != ".." && bridgeChars.MatchString(name)
}

var bridgeChars = regexp.MustCompile(`^[^/:\s]+$`)

// cidr checks the prefix of a NAT or isolated network and returns it
// canonical, or "" after reporting what is wrong at path.
func (b *builder) cidr(path []string, raw string) string {
	prefix, err := netip.ParsePrefix(raw)
	switch {
	case err != nil:
		b.errorf(path, "%q is not a CIDR prefix; write it like \"10.77.0.0/24\"", raw)
	case !prefix.Addr().Is4():
		b.errorf(path, "%q is not IPv4; networks are IPv4 prefixes like \"10.77.0.0/24\"", raw)
	case prefix.Bits() > 30:
		b.errorf(path, "%q leaves no room for a gateway and guests; use /30 or shorter", raw)
	case prefix.Masked() != prefix:
		b.errorf(path, "%q has host bits set; write the network address %q", raw, prefix.Masked().String())
	default:
		return prefix.String()
	}
	return ""
}

func (b *builder) vm(tenant string, g *grant, vp []string, name string, raw *rawVM, nets map[string]*model.Network, zones map[string]*model.Zone) *model.VM {
	v := &model.VM{
		Tenant: tenant, Name: name, HostName: raw.Host, Autostart: raw.Autostart, Running: raw.Running == nil || *raw.Running,
		VCPUs: raw.VCPUs, Pos: b.pos.pos(vp...),
	}
	v.Host = b.host(tenant, g, at(vp, "host"), raw.Host)
	if !libvirtName.MatchString(name) {
		b.errorf(vp, "VM name %q: use letters, digits, '-', '_', '.' and '+', at most 63 characters", name)
	}
	if mem, err := ParseSize(raw.Memory); err != nil {
		b.errorf(at(vp, "memory"), "%v", err)
	} else if mem < minVMMemory {
		b.errorf(at(vp, "memory"), "memory %q is less than a guest boots in; use %s or more", raw.Memory, FormatSize(minVMMemory))
	} else {
		v.MemoryBytes = mem
	}
	b.vmDisks(v, vp, raw)
	for i, nic := range raw.NICs {
		np := at(vp, "nics", strconv.Itoa(i))
		m := model.NIC{Network: nic.Network, Address: nic.Address, MAC: strings.ToLower(nic.MAC)}
		net, ok := nets[nic.Network]
		switch {
		case !ok:
			b.errorf(at(np, "network"), "network %q is not declared in tenant %s; declare it under networks, or use one of: %s",
				nic.Network, tenant, declared(nets))
		case net.HostName != raw.Host:
			b.related(at(np, "network"), []model.Pos{net.Pos}, "network %q is on host %q, this VM on %q; a VM attaches only to networks on its own host",
				nic.Network, net.HostName, raw.Host)
		}
		if nic.Address != "" {
			addr, err := netip.ParseAddr(nic.Address)
			switch {
			case err != nil || !addr.Is4():
				b.errorf(at(np, "address"), "%q is not an IPv4 address", nic.Address)
			case ok && net.Mode == model.NetBridge:
				b.related(at(np, "address"), []model.Pos{net.Pos}, "network %s is bridged onto host bridge %s, where libvirt serves no DHCP, so site cannot fix the address; leave address out and set it in the guest (cloudinit network_config)", net.Name, net.Bridge)
			case ok:
				b.nicAddress(at(np, "address"), addr, net)
			}
		}
		v.NICs = append(v.NICs, m)
	}
	if raw.CloudInit != nil {
		v.CloudInit = &model.CloudInit{UserData: raw.CloudInit.UserData, MetaData: raw.CloudInit.MetaData, NetworkConfig: raw.CloudInit.NetworkConfig}
		if !cloudInitReads(raw.CloudInit.UserData) {
			b.diags = append(b.diags, Diagnostic{Pos: b.pos.pos(at(vp, "cloudinit", "user_data")...), Path: cuePath(at(vp, "cloudinit", "user_data")...), Warning: true,
				Msg: `cloud-init ignores user data that does not begin with a header it knows; begin it with "#cloud-config" (a cloud-config), "#!" (a script), "#include" (URLs), "## template: jinja", or write a MIME multi-part message`})
		}
	}
	if raw.Publish != nil {
		v.Publish = b.publish(tenant, at(vp, "publish"), raw, v, nets, zones)
	}
	return v
}

// nicAddress checks a static address against its network: inside the
// prefix, not the network, gateway (the first host, as the libvirt
// backend configures it) or broadcast address, and not another NIC's.
func (b *builder) nicAddress(path []string, addr netip.Addr, net *model.Network) {
	prefix, err := netip.ParsePrefix(net.CIDR)
	if err != nil {
		return // reported at the network
	}
	gateway := prefix.Addr().Next()
	a4 := prefix.Addr().As4()
	n := uint32(a4[0])<<24 | uint32(a4[1])<<16 | uint32(a4[2])<<8 | uint32(a4[3])
	n |= 1<<(32-prefix.Bits()) - 1
	broadcast := netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	switch {
	case !prefix.Contains(addr):
		b.related(path, []model.Pos{net.Pos}, "%s is outside network %s (%s)", addr, net.Name, net.CIDR)
	case addr == prefix.Addr():
		b.related(path, []model.Pos{net.Pos}, "%s is the address of network %s itself; use a host address", addr, net.Name)
	case addr == gateway:
		b.related(path, []model.Pos{net.Pos}, "%s is the gateway of network %s (its first host); use another address", addr, net.Name)
	case addr == broadcast:
		b.related(path, []model.Pos{net.Pos}, "%s is the broadcast address of network %s; use a host address", addr, net.Name)
	default:
		key := net.Tenant + "/" + net.Name + " " + addr.String()
		if prev, dup := b.addrs[key]; dup {
			b.related(path, []model.Pos{prev}, "%s is already the address of another NIC on network %s", addr, net.Name)
			return
		}
		if b.addrs == nil {
			b.addrs = map[string]model.Pos{}
		}
		b.addrs[key] = b.pos.pos(path...)
	}
}

// publish makes the VM the writer of one A or AAAA RRset per name, added
// to the zone it names, so that backends write them like any other. With
// address "lease" the A records carry a LeaseRef instead of a value: the
// address is read from the network's DHCP leases when the zone is
// planned.
func (b *builder) publish(tenant string, pp []string, raw *rawVM, vm *model.VM, nets map[string]*model.Network, zones map[string]*model.Zone) *model.Publish {
	p := &model.Publish{Address: raw.Publish.Address, Pos: b.pos.pos(pp...)}
	zname, err := dnsname.Canonical(raw.Publish.Zone, ".")
	if err != nil {
		b.errorf(at(pp, "zone"), "%v", err)
		return p
	}
	p.Zone = zname
	z, ok := zones[zname]
	if !ok {
		b.errorf(at(pp, "zone"), "zone %s is not declared in tenant %s; a VM publishes only into its own tenant's zones", zname, tenant)
		return p
	}
	typ, value := "A", ""
	var lease *model.LeaseRef
	if raw.Publish.Address == model.PublishLease {
		if len(raw.NICs) == 0 {
			b.errorf(at(pp, "address"), "address %q reads the DHCP lease of the VM's first NIC, and this VM has none: add a NIC on one of the tenant's networks, or publish a fixed address", model.PublishLease)
			return p
		}
		if net, ok := nets[raw.NICs[0].Network]; ok && !net.ServesDHCP() {
			b.related(at(pp, "address"), []model.Pos{net.Pos}, "address %q reads libvirt's DHCP leases, and the VM's first NIC is on network %s, bridged onto host bridge %s, where libvirt serves no DHCP: publish a fixed address", model.PublishLease, net.Name, net.Bridge)
			return p
		}
		if raw.Publish.PTR {
			b.errorf(at(pp, "ptr"), "ptr needs a fixed address, and %q is known only once the guest has its lease: publish a fixed address (a NIC address the network hands out), or remove ptr", model.PublishLease)
			return p
		}
		lease = &model.LeaseRef{Host: vm.Host, VM: vm.Name, NIC: 0, Tenant: tenant}
	} else if v, err := rdata.A(raw.Publish.Address); err == nil {
		value = v
	} else if v, err := rdata.AAAA(raw.Publish.Address); err == nil {
		typ, value = "AAAA", v
	} else {
		b.errorf(at(pp, "address"), "%q is neither an IPv4 nor an IPv6 address, nor %q (the address of the VM's DHCP lease)", raw.Publish.Address, model.PublishLease)
		return p
	}
	element := cuePath(at(pp[2:])...)
	spelt := map[string]int{}
	for i, n := range raw.Publish.Names {
		np := at(pp, "names", strconv.Itoa(i))
		fq, ok := b.ownerName(np, n, z)
		if !ok {
			continue
		}
		if j, dup := spelt[fq]; dup {
			b.related(np, []model.Pos{b.pos.pos(at(pp, "names", strconv.Itoa(j))...)},
				"%q and %q are two spellings of %s; keep one", raw.Publish.Names[j], n, fq)
			continue
		}
		spelt[fq] = i
		p.Names = append(p.Names, fq)
		rs := &model.RRset{
			Name: fq, Type: typ, TTL: z.TTL, Values: []string{value}, Lease: lease,
			Writer: model.Writer{Kind: model.WriterVMPublish, Tenant: tenant, Element: element, Pos: b.pos.pos(np...)},
		}
		if lease != nil {
			rs.Values = nil
		}
		// No index (nil): the zone is still growing, and a publish
		// asks these of a few names.
		if b.delegatedAway(np, z, rs, nil) || b.coversGranted(np, z, rs, nil) {
			continue
		}
		z.RRsets = append(z.RRsets, rs)
	}
	if raw.Publish.PTR && len(p.Names) > 0 {
		b.publishPTR(tenant, at(pp, "ptr"), p, zones)
	}
	return p
}

// ownerName canonicalises an owner name written in zone z and checks it
// lies inside the zone.
func (b *builder) ownerName(path []string, name string, z *model.Zone) (string, bool) {
	fq, err := dnsname.Canonical(name, z.Name)
	if err != nil {
		b.errorf(path, "%v", err)
		return "", false
	}
	// A relative name that already ends in the zone's name was meant
	// absolute: www.example.org in zone example.org would be
	// www.example.org.example.org., a name nobody queries.
	if abs, ok := dnsname.MeantAbsolute(name, z.Name); ok {
		b.errorf(path, "%q is relative to zone %s, so it reads as %s; write %q (relative to the zone) or %q (absolute, with the trailing dot)", name, z.Name, fq, dnsname.Relative(abs, z.Name), abs)
		return "", false
	}
	if !dnsname.IsSubdomain(fq, z.Name) {
		b.errorf(path, "%s is outside zone %s; write names relative to the zone, or absolute names that end in %s", fq, z.Name, z.Name)
		return "", false
	}
	return fq, true
}

func declared(nets map[string]*model.Network) string {
	if len(nets) == 0 {
		return "(none declared)"
	}
	return strings.Join(slices.Sorted(maps.Keys(nets)), ", ")
}
