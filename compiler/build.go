package compiler

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
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
		for _, n := range slices.Sorted(maps.Keys(raw.Networks)) {
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
		if len(raw.DNS.Names) > 0 {
			t.Names = b.singleNames(name, g, tp, raw.DNS.Names)
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
		for _, v := range slices.Sorted(maps.Keys(raw.VMs)) {
			t.VMs = append(t.VMs, b.vm(name, g, at(tp, "vms", v), v, raw.VMs[v], nets, zones))
		}
	}
	for _, z := range t.Zones {
		sortRRsets(z.RRsets)
	}
	return t
}
