package compiler

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A record that names another (an MX's mail host, a CNAME's or ALIAS's
// target, an SRV's target, an NS's name server) is only as good as that
// name. When the name lies in a zone the same tenant declares, site
// serves everything that zone holds, so a name the spec writes nothing
// at is most likely one a change dropped (mx1 removed while "@": MX
// still names mx1.acme.example.): vet warns. A name in another tenant's
// zone is that tenant's to write, whenever it does (the /24's CNAME
// into an RFC 2317 block names every address, used or not), so it is
// left alone. Live records written outside
// site are invisible here, which is why this is a warning and why an
// ignore rule for the name silences it. The name counts as written when
// any RRset is there (a VM's publish included), when it lies at or below
// a delegation in that zone (the child serves it), below a DNAME, or
// under a wildcard of the zone.

// danglingTypes are the types whose values name another owner, as the
// last field of each value.
var danglingTypes = map[string]bool{"MX": true, "CNAME": true, "ALIAS": true, "SRV": true, "NS": true}

// danglingTargets warns of every name a record of danglingTypes points
// at, inside a zone its tenant declares, where that zone writes nothing.
// zones are the first declarations.
func (c *checker) danglingTargets(spec *model.Spec, zones map[string]*model.Zone) {
	written := map[*model.Zone]map[string]bool{}
	names := func(z *model.Zone) map[string]bool {
		if n, ok := written[z]; ok {
			return n
		}
		n := map[string]bool{}
		for _, rs := range z.RRsets {
			n[rs.Name] = true
		}
		written[z] = n
		return n
	}
	for _, t := range spec.Tenants {
		for _, z := range t.Zones {
			if zones[z.Name] != z {
				continue
			}
			if !c.next(z.Pos) {
				return
			}
			for _, rs := range z.RRsets {
				if !danglingTypes[rs.Type] || rs.Writer.Kind != model.WriterZoneRecords {
					continue
				}
				warned := map[string]bool{}
				var byTarget map[string][]string // read once a warning needs it
				for _, v := range rs.Values {
					fields := strings.Fields(v)
					if len(fields) == 0 {
						continue
					}
					target := fields[len(fields)-1]
					if rs.Type == "NS" && rs.Name != z.Name && (target == rs.Name || strings.HasSuffix(target, "."+rs.Name)) {
						continue // a name server inside the child it delegates: its address is glue, the delegation checks' (check.go)
					}
					home := enclosingZone(target, zones)
					if home == nil || home.Tenant != z.Tenant || warned[target] || served(target, home, names(home), c.ix.of(home), c.ignoreIndex(home)) {
						continue
					}
					warned[target] = true
					label := cuePath(strings.TrimSuffix(target, "."+home.Name))
					if byTarget == nil {
						byTarget = valuesByTarget(rs.Values)
					}
					pos, path := c.src.value(rs, byTarget[target])
					c.diags = append(c.diags, Diagnostic{Pos: pos, Path: path, Warning: true,
						Msg: fmt.Sprintf("%s %s names %s, but zone %s (tenant %s) has no records at %s, so it would not resolve; add records at %s to that zone, or an ignore rule for %s if another writer serves it",
							rs.Name, rs.Type, target, home.Name, home.Tenant, target, label, label)})
				}
			}
		}
	}
}

// valuesByTarget groups values by the name each names (its last
// field): a warning about a target is at the first of its values
// written, as an error about a value is at its element.
func valuesByTarget(values []string) map[string][]string {
	out := map[string][]string{}
	for _, v := range values {
		if fields := strings.Fields(v); len(fields) > 0 {
			target := fields[len(fields)-1]
			out[target] = append(out[target], v)
		}
	}
	return out
}

// enclosingZone is the deepest declared zone name lies in, nil when
// none does.
func enclosingZone(name string, zones map[string]*model.Zone) *model.Zone {
	for n := name; n != "." && n != ""; n = parentName(n) {
		if z, ok := zones[n]; ok {
			return z
		}
	}
	return nil
}

// served reports whether zone z answers for target with data the spec
// accounts for: the apex (SOA and NS are always there), a name with
// records, a name an ignore rule leaves to another writer, a name at or
// below a delegation or below a DNAME, or a name a wildcard covers.
//
// ix and ign index z's RRsets and ignore rules: each of target's
// ancestors is looked up, not scanned for.
func served(target string, z *model.Zone, names map[string]bool, ix rrIndex, ign *ignoreIndex) bool {
	if target == z.Name || names[target] || ign.first(z, target, "", true) != nil {
		return true
	}
	for n := target; n != z.Name && n != "." && n != ""; n = parentName(n) {
		if rs := ix.get(z, n, "NS"); rs != nil {
			return true // a delegation: the child zone serves it
		}
		if n != target && (ix.get(z, n, "DNAME") != nil || names["*."+n]) {
			return true
		}
	}
	return names["*."+z.Name]
}
