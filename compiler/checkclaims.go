package compiler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// The claims between tenants: one holder per zone, VM and network, one
// tenant per disk volume. They read names, hosts and positions only,
// which a neighbour's index holds (neighbours.go).

// firstClaim is the first tenant to declare a zone, VM or network.
type firstClaim struct {
	tenant string
	pos    model.Pos
}

// claimKey names what a tenant claims: a zone (host ""), or a VM or
// network on a host. A struct rather than a joined string: every zone
// of every tenant loaded is claimed on every load.
type claimKey struct{ kind, host, name string }

// claimOnce records tenant as key's writer, or reports the second one
// (what and fix name it; path is where, only spelled then).
func (c *checker) claimOnce(key claimKey, tenant string, pos model.Pos, path func() string, what, fix string) bool {
	if prev, ok := c.claims[key]; ok {
		c.two(pos, prev.pos, path(), "%s is declared by tenants %s and %s: two writers; %s", what, prev.tenant, tenant, fix)
		return false
	}
	c.claims[key] = firstClaim{tenant, pos}
	return true
}

// claimResources gives a zone, VM or network one writer: the same name
// declared by two tenants would have them fight over it. The first
// tenant (in load order) keeps it; the second is reported, pointing at
// the first. It returns each zone's first declaration.
//
// The zones of the tenants in alone (nil: none) are left out, both of
// the claims and of what it returns: each is a neighbour's no other
// file's zone is at, above or below (markAlone), so no other tenant
// declares it, and no record check of another tenant finds it where it
// looks (a zone at or below one of its own, or, for a target, one of
// its own tenant's). At 10,000 zones, claiming them was a tenth of a
// load among neighbours.
func (c *checker) claimResources(spec *model.Spec, alone map[*model.Tenant]bool) map[string]*model.Zone {
	n := 0
	for _, t := range spec.Tenants {
		n += len(t.VMs) + len(t.Networks)
		if !alone[t] {
			n += len(t.Zones)
		}
	}
	// Sized once: grown as it filled, the maps were most of the claims'
	// cost at 10,000 zones.
	zones := make(map[string]*model.Zone, n)
	if len(c.claims) == 0 {
		c.claims = make(map[claimKey]firstClaim, n)
	}
	for _, t := range spec.Tenants {
		if !c.next(t.Pos) {
			return zones
		}
		for _, z := range t.Zones {
			if alone[t] {
				break
			}
			if _, ok := c.claims[claimKey{"zone", "", z.Name}]; !ok {
				c.claims[claimKey{"zone", "", z.Name}] = firstClaim{t.Name, z.Pos}
				zones[z.Name] = z
				continue
			}
			c.claimOnce(claimKey{"zone", "", z.Name}, t.Name, z.Pos, func() string {
				return cuePath("tenants", t.Name, "dns", "zones", strings.TrimSuffix(z.Name, "."))
			}, "zone "+z.Name, "declare each zone in one tenant")
		}
		for _, v := range t.VMs {
			c.claimOnce(claimKey{"vm", v.Host, v.Name}, t.Name, v.Pos, func() string { return cuePath("tenants", t.Name, "vms", v.Name) },
				"VM "+v.Name+" on host "+v.Host, "rename one")
		}
		for _, n := range t.Networks {
			c.claimOnce(claimKey{"net", n.Host, n.Name}, t.Name, n.Pos, func() string { return cuePath("tenants", t.Name, "networks", n.Name) },
				"network "+n.Name+" on host "+n.Host, "rename one")
		}
	}
	return zones
}

// claimVolumes gives a disk volume one tenant. Tenants granted one host
// share its pools, and a VM names its volumes by pool and name, so
// another tenant's VM naming the same volume as its disk would get that
// tenant's data, read and write, and naming it as its base would read
// it (an overlay) or copy it (a clone). Which of two tenants naming one
// volume made it is the live system's to say, not the specs', so each
// is reported. A base that is no tenant's disk, an image the operator
// provides, is every tenant's to start from. Within a tenant a disk
// volume is one VM's too: two guests on one disk corrupt it, and an
// overlay on (or a copy of) another VM's disk reads it while that guest
// writes it.
func (c *checker) claimVolumes(spec *model.Spec) {
	type diskOf struct {
		tenant, vm string
		pos        model.Pos
	}
	disks := map[string][]diskOf{} // the first disk of each VM on a volume
	key := func(v *model.VM, pool, name string) string { return v.Host + "\x00" + pool + "\x00" + name }
	each := func(f func(t *model.Tenant, v *model.VM, i int, d model.Disk)) {
		for _, t := range spec.Tenants {
			for _, v := range t.VMs {
				for i, d := range v.Disks {
					if v.Host != "" { // "" is a host not granted, reported where it is named
						f(t, v, i, d)
					}
				}
			}
		}
	}
	each(func(t *model.Tenant, v *model.VM, _ int, d model.Disk) {
		k := key(v, d.Pool, d.Name)
		if !slices.ContainsFunc(disks[k], func(o diskOf) bool { return o.tenant == t.Name && o.vm == v.Name }) {
			disks[k] = append(disks[k], diskOf{t.Name, v.Name, d.Pos})
		}
	})
	taken := func(t *model.Tenant, v *model.VM, i int, field, name string, at model.Pos) {
		path := cuePath("tenants", t.Name, "vms", v.Name, "disks", strconv.Itoa(i), field)
		users := disks[key(v, v.Disks[i].Pool, name)]
		for _, o := range users {
			if o.tenant != t.Name {
				c.two(at, o.pos, path,
					"volume %s/%s on host %s is a disk of tenant %s's VM %s: a disk volume belongs to one tenant, and no other tenant's VM uses it, as a disk or as a base; name a volume of your own, or an image the operator provides",
					v.Disks[i].Pool, name, v.Host, o.tenant, o.vm)
				return
			}
		}
		for _, o := range users {
			if o.vm == v.Name {
				continue
			}
			if field == "name" {
				c.two(at, o.pos, path,
					"volume %s/%s on host %s is a disk of VM %s too: a disk volume is one VM's, and two guests on one disk corrupt it; give each VM a volume of its own (base: an image starts each from the same one)",
					v.Disks[i].Pool, name, v.Host, o.vm)
			} else {
				c.two(at, o.pos, path,
					"volume %s/%s on host %s is a disk of VM %s: a disk made from it would read it while that guest writes it; start from an image the operator provides, or a volume no VM has as its disk",
					v.Disks[i].Pool, name, v.Host, o.vm)
			}
			return
		}
	}
	each(func(t *model.Tenant, v *model.VM, i int, d model.Disk) {
		// A VM's first disk on a volume other VMs name too.
		if o := disks[key(v, d.Pool, d.Name)]; len(o) > 1 && slices.ContainsFunc(o, func(o diskOf) bool { return o.pos == d.Pos }) {
			taken(t, v, i, "name", d.Name, d.Pos)
		}
		if d.Base != "" {
			taken(t, v, i, "base", d.Base, d.BasePos)
		}
	})
}
