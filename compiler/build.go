package compiler

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// builder turns one file's raw tenants into the model: it canonicalises
// every DNS name once, turns record contents into their canonical
// presentation form, and reports what is wrong inside one tenant.
// Problems between tenants are found afterwards, by check.
type builder struct {
	op    *operator // site.cue: what names resolve to, what the tenant may use
	pos   *positions
	diags Diagnostics
	addrs map[string]model.Pos // "tenant/network address" -> the NIC that has it
}

func (b *builder) errorf(path []string, format string, args ...any) {
	b.diags = append(b.diags, Diagnostic{Pos: b.pos.pos(path...), Path: cuePath(path...), Msg: fmt.Sprintf(format, args...)})
}

func (b *builder) related(path []string, related []model.Pos, format string, args ...any) {
	b.diags = append(b.diags, Diagnostic{Pos: b.pos.pos(path...), Related: related, Path: cuePath(path...), Msg: fmt.Sprintf(format, args...)})
}

// at appends elems to a copy of path, so that paths built in loops never
// share a backing array.
func at(path []string, elems ...string) []string {
	out := make([]string, 0, len(path)+len(elems))
	return append(append(out, path...), elems...)
}

var (
	tenantName  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	libvirtName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,62}$`)
)

// CheckTenantName says what is wrong with a tenant name, or nil. vet
// checks every spec with it; commands that write a tenant's name onto
// live systems (site export's owner markers) check it before they do.
func CheckTenantName(name string) error {
	if !tenantName.MatchString(name) {
		return fmt.Errorf("tenant name %q: use lower case letters, digits and '-', at most 63 characters (it names owner markers and steps)", name)
	}
	if name+".cue" == ConfigName {
		// Its file would be tenants/site.cue: taken for the operator's
		// file by a run from inside tenants/, and the operators' under
		// the owner rule **/site.cue.
		return fmt.Errorf("tenant name %q: its file would be named %s, as the operator's file is; pick another name", name, ConfigName)
	}
	return nil
}

func (b *builder) tenant(name string, raw *rawTenant) *model.Tenant {
	tp := []string{"tenants", name}
	t := &model.Tenant{Name: name, Pos: b.pos.pos(tp...), Locks: b.op.locks}
	if err := CheckTenantName(name); err != nil {
		b.errorf(tp, "%v", err)
		return t // no grant can name it
	}
	if d, err := dnsname.Canonical(raw.Domain, "."); err != nil {
		b.errorf(at(tp, "domain"), "%v", err)
	} else {
		t.Domain = d
	}
	g := b.grantOf(name, tp)
	if g == nil {
		return t
	}
	if t.Domain != "" {
		b.holds(name, g, at(tp, "domain"), "domain", t.Domain)
	}
	b.withinLimits(name, g, tp, raw)

	if raw.Networks != nil {
		for _, n := range sortedKeys(raw.Networks) {
			t.Networks = append(t.Networks, b.network(name, g, at(tp, "networks", n), n, raw.Networks[n]))
		}
	}
	zones := map[string]*model.Zone{}
	if raw.DNS != nil {
		spelt := map[string]string{}
		for _, key := range b.inFileOrder(at(tp, "dns", "zones"), slices.Collect(maps.Keys(raw.DNS.Zones))) {
			zp := at(tp, "dns", "zones", key)
			z := b.zone(name, g, zp, key, raw.DNS.Zones[key])
			if z == nil {
				continue
			}
			if prev, ok := spelt[z.Name]; ok {
				b.related(zp, []model.Pos{b.pos.pos(at(tp, "dns", "zones", prev)...)},
					"zones %q and %q are two spellings of %s; keep one", prev, key, z.Name)
				continue
			}
			spelt[z.Name] = key
			zones[z.Name] = z
			t.Zones = append(t.Zones, z)
		}
	}
	signedChildren(t.Zones, func(n string) bool {
		c, ok := b.op.claims[n]
		return ok && c.tenant != name
	})
	nets := map[string]*model.Network{}
	for _, n := range t.Networks {
		nets[n.Name] = n
	}
	if raw.VMs != nil {
		for _, v := range sortedKeys(raw.VMs) {
			t.VMs = append(t.VMs, b.vm(name, g, at(tp, "vms", v), v, raw.VMs[v], nets, zones))
		}
	}
	for _, z := range t.Zones {
		sortRRsets(z.RRsets)
	}
	return t
}

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
	return strings.Join(sortedKeys(nets), ", ")
}

// minVMMemory is the least memory site vet lets a VM have. libvirt
// takes any size and leaves the floor to the hypervisor ("some
// hypervisors also enforce a minimum, such as 4000KiB", formatdomain's
// memory element), and QEMU starts a guest with too little only to see
// its firmware or kernel fail to load or hang, with no word of memory
// (kata-containers/runtime#3046: -m 8M). 64MiB is what the smallest
// cloud test image, CirrOS, boots in (OpenStack's m1.nano flavour) and
// what the tiny guests of reference/libvirt.md run in under real QEMU.
const minVMMemory = 64 << 20

// cloudInitReads reports whether cloud-init acts on user data: one
// beginning (case and leading white space aside) with a header its
// handlers know (cloudinit/handlers INCLUSION_TYPES_MAP: #cloud-config,
// and its -archive and -jsonp forms, #!, #include and #include-once,
// #cloud-boothook, #part-handler, #upstart-job, "## template: jinja"),
// or a MIME message ("mime-version:" within its first 4096 bytes, as
// cloudinit/user_data.py looks for it). Anything else is logged as
// "Unhandled non-multipart userdata" on the guest and otherwise
// ignored. Empty user data asks for nothing and is not warned of.
func cloudInitReads(userData string) bool {
	lower := strings.ToLower(strings.TrimLeft(userData, " \t\r\n"))
	if lower == "" || strings.Contains(strings.ToLower(userData[:min(len(userData), 4096)]), "mime-version:") {
		return true
	}
	for _, h := range []string{"#cloud-config", "#!", "#include", "#cloud-boothook", "#part-handler", "#upstart-job", "## template: jinja"} {
		if strings.HasPrefix(lower, h) {
			return true
		}
	}
	return false
}

var sizeUnits = map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// ParseSize reads a size with a binary unit, "512MiB" or "2GiB", as specs
// write VM memory and disk sizes and site --eval-memory takes a budget.
func ParseSize(s string) (uint64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i <= 0 {
		return 0, fmt.Errorf("size %q: write a number and a unit, like \"512MiB\" or \"2GiB\"", s)
	}
	unit, ok := sizeUnits[s[i:]]
	if !ok {
		return 0, fmt.Errorf("size %q: the unit must be KiB, MiB, GiB or TiB", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || n == 0 || n > (1<<64-1)/unit {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return n * unit, nil
}

// inFileOrder sorts the keys of the map at path in the order the user
// wrote them, so that of two spellings of one name the later one is
// reported. Keys the user did not write (from a comprehension) go last,
// by name.
func (b *builder) inFileOrder(path []string, keys []string) []string {
	type keyed struct {
		key       string
		line, col int
	}
	ks := make([]keyed, len(keys))
	// One lookup per key, its index key built from the prefix joined
	// once (a 10,000-name zone made this a tenth of a cached load), in
	// a buffer: a lookup by string(key) copies nothing.
	key := []byte(strings.Join(path, pathSep) + pathSep)
	prefix := len(key)
	for i, k := range keys {
		ks[i] = keyed{key: k, line: 1 << 30}
		key = append(key[:prefix], k...)
		lc, ok := b.pos.at[string(key)]
		switch {
		case ok && lc[0] > 0:
			ks[i].line, ks[i].col = lc[0], lc[1]
		case ok: // written where CUE knew no position: its nearest ancestor's
			pos := b.pos.pos(at(path, k)...)
			ks[i].line, ks[i].col = pos.Line, pos.Col
		}
	}
	// Keys at one position (none the user wrote) go in name order, so
	// keys may come in any order: one sort, not a sort by name first.
	slices.SortFunc(ks, func(x, y keyed) int {
		return cmp.Or(cmp.Compare(x.line, y.line), cmp.Compare(x.col, y.col), strings.Compare(x.key, y.key))
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.key
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortRRsets(rs []*model.RRset) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Name != rs[j].Name {
			return rs[i].Name < rs[j].Name
		}
		return rs[i].Type < rs[j].Type
	})
}
