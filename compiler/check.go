package compiler

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// check finds what is wrong between tenants (and between writers inside
// one tenant) once every file is built: each canonical DNS name, zone,
// VM and network has exactly one writer across everything loaded. It
// also checks what needs every zone to judge: a DS beside no NS, and a
// delegation of another tenant's zone against it (delegation.go), and
// warns of a target its zone leaves empty (dangling.go). src are the
// files spec was built from, for positions of values. The checks run
// within w's budgets (nil: none): each stops at the next zone once a
// budget passed (checker.next), and what they found is not used.
func check(spec *model.Spec, src *sources, w *watchdog) Diagnostics {
	return checkSplit(spec, spec, src, w)
}

// checkSplit is check with the record checks over records alone, a
// part of all: the tenants of all not in it are neighbours whose record
// checks are their own (neighbours.go), the claims are over all.
func checkSplit(all, records *model.Spec, src *sources, w *watchdog) Diagnostics {
	c := newChecker(src, w)
	var alone map[*model.Tenant]bool // of all, not in records
	if records != all {
		in := make(map[*model.Tenant]bool, len(records.Tenants))
		for _, t := range records.Tenants {
			in[t] = true
		}
		alone = map[*model.Tenant]bool{}
		for _, t := range all.Tenants {
			if !in[t] {
				alone[t] = true
			}
		}
	}
	zones := c.claimResources(all, alone)
	c.claimVolumes(all)
	c.separateNetworks(all)
	c.uniqueMACs(all)
	c.recordChecks(records, zones)
	return c.diags
}

func newChecker(src *sources, w *watchdog) *checker {
	return &checker{claims: map[claimKey]firstClaim{}, src: src, ix: zoneIndexes{}, w: w}
}

// recordChecks runs the checks that read the records of spec's zones;
// zones are the first declarations of every zone loaded.
func (c *checker) recordChecks(spec *model.Spec, zones map[string]*model.Zone) {
	c.handNames(spec, zones)
	c.oneWriterPerName(spec, zones)
	c.dsWithoutDelegation(spec, zones)
	c.delegationsAcrossTenants(spec, zones)
	c.danglingTargets(spec, zones)
}

// checker collects the diagnostics of check.
type checker struct {
	diags  Diagnostics
	claims map[claimKey]firstClaim
	src    *sources
	ix     zoneIndexes // each zone's RRsets by name and type (rrindex.go)
	w      *watchdog
	ign    map[*model.Zone]*ignoreIndex // each zone's ignore rules (ignoreindex.go)
}

// next records that the checks are at pos (a tenant or a zone, where a
// budget that passes is reported) and reports false once a budget has
// passed: the check then stops.
func (c *checker) next(pos model.Pos) bool { return c.w.at(pos) }

func (c *checker) two(at model.Pos, first model.Pos, path, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: at, Related: []model.Pos{first}, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// separateNetworks reports networks on one host whose prefixes overlap:
// the host routes each network's prefix to its bridge, so the one that
// starts first takes the addresses and libvirt refuses to start the
// other, and a tenant's network inside another tenant's would take the
// other's addresses. Each network that overlaps is reported, naming
// another tenant's network before one of its own.
func (c *checker) separateNetworks(spec *model.Spec) {
	type net struct {
		tenant string
		n      *model.Network
		prefix netip.Prefix
	}
	byHost := map[string][]net{}
	for _, t := range spec.Tenants {
		for _, n := range t.Networks {
			if p, err := netip.ParsePrefix(n.CIDR); err == nil && n.Host != "" {
				byHost[n.Host] = append(byHost[n.Host], net{t.Name, n, p.Masked()})
			}
		}
	}
	for _, nets := range byHost {
		for i, a := range nets {
			var other *net
			for j, b := range nets {
				if j != i && a.prefix.Overlaps(b.prefix) && (other == nil || other.tenant == a.tenant && b.tenant != a.tenant) {
					other = &nets[j]
				}
			}
			if other != nil {
				c.two(a.n.Pos, other.n.Pos, cuePath("tenants", a.tenant, "networks", a.n.Name),
					"network %s (%s) on host %s overlaps tenant %s's network %s (%s): networks on one host never share addresses; pick a prefix no other network there uses",
					a.n.Name, a.n.CIDR, a.n.Host, other.tenant, other.n.Name, other.n.CIDR)
			}
		}
	}
}

// written is the first writer of a name and the types it wrote there.
type written struct {
	writer model.Writer
	types  []string
}

// oneWriterPerName checks one writer per canonical name, whatever the
// types: a CNAME from one writer beside an A from another is the
// conflict of INCIDENTS.md 2. A zone cut has two sides, each with a
// writer of its own: the parent's delegation (NS and DS at the cut, glue
// below it, all misplaced lets through) and the child zone's records at
// its apex and below, which a resolver asks the child for.
func (c *checker) oneWriterPerName(spec *model.Spec, zones map[string]*model.Zone) {
	names := map[string]*written{}
	reported := map[string]bool{}
	for _, t := range spec.Tenants {
		for _, z := range t.Zones {
			if zones[z.Name] != z {
				continue // a second declaration of a zone, reported above
			}
			if !c.next(z.Pos) {
				return
			}
			for _, rs := range z.RRsets {
				if c.misplaced(rs, z, zones) {
					continue
				}
				name := rs.Name
				if zoneCut(rs.Name, z.Name, zones) != nil {
					name += "\x00delegation"
				}
				w, ok := names[name]
				if !ok {
					names[name] = &written{writer: rs.Writer, types: []string{rs.Type}}
					continue
				}
				if sameWriter(w.writer, rs.Writer) {
					w.types = append(w.types, rs.Type)
					continue
				}
				key := rs.Name + "\x00" + writerPath(rs.Writer)
				if reported[key] {
					continue
				}
				reported[key] = true
				c.two(rs.Writer.Pos, w.writer.Pos, writerPath(rs.Writer),
					"two writers for %s: %s by %s, and %s by %s; a name has exactly one writer, so remove one",
					rs.Name, strings.Join(w.types, "+"), describe(w.writer), rs.Type, describe(rs.Writer))
			}
		}
	}
}

// misplaced reports rs when it cannot be written where it is: a VM's
// publish below a DNAME, a name an ignore rule matches, or a name below
// another zone's cut.
func (c *checker) misplaced(rs *model.RRset, z *model.Zone, zones map[string]*model.Zone) bool {
	// zoneRules reports the zone's own records below a DNAME; a VM's
	// publish joins the zone later, so it is checked here.
	ix := c.ix.of(z)
	if rs.Writer.Kind == model.WriterVMPublish {
		if d := dnameAbove(rs.Name, z, ix); d != nil {
			c.two(rs.Writer.Pos, d.Writer.Pos, writerPath(rs.Writer),
				"%s lies below the DNAME at %s, which redirects every name below it (RFC 6672 §2.3); publish another name or remove the DNAME", rs.Name, d.Name)
			return true
		}
	}
	if r := c.ignored(z, rs.Name, rs.Type); r != nil {
		c.two(rs.Writer.Pos, r.Pos, writerPath(rs.Writer),
			"%s %s matches the zone's ignore rule %q, so site would never write it; remove the record or narrow the rule",
			rs.Name, rs.Type, r.Name+typeSuffix(r.Type))
		return true
	}
	// Below another tenant's zone the builder reported it already, at
	// the name site.cue grants that tenant (delegatedAway).
	cut := zoneCut(rs.Name, z.Name, zones)
	if cut == nil || cut.Tenant != z.Tenant {
		return false
	}
	atCut := rs.Name == cut.Name
	switch {
	case atCut && rs.Type == "NS":
		return false // the delegation
	case atCut && rs.Type == "DS" && cut.DNSSEC:
		c.two(rs.Writer.Pos, cut.Pos, writerPath(rs.Writer),
			"zone %s is signed (dnssec: true), so site publishes its DS in its nearest parent zone itself, from its keys; remove this DS",
			cut.Name)
		return true
	case atCut && rs.Type == "DS" && zoneCut(parentName(rs.Name), z.Name, zones) == nil:
		return false // the parent's half of the delegation of a child signed elsewhere
	case isGlue(rs, ix.get(z, cut.Name, "NS")):
		return false // a resolver that follows the delegation needs it
	}
	c.two(rs.Writer.Pos, cut.Pos, writerPath(rs.Writer),
		"%s lies in zone %s (tenant %s), below this zone's cut; write it in that zone, or only the delegation at %s (NS, a DS if that zone is signed outside site, and the addresses of its name servers below it) in its nearest parent zone",
		rs.Name, cut.Name, cut.Tenant, cut.Name)
	return true
}

// isGlue reports whether rs is an address of a name server that ns,
// the NS of a zone at a cut (nil for none), names: the glue a parent
// serves beside the delegation, for a name server inside the child.
func isGlue(rs, ns *model.RRset) bool {
	if rs.Type != "A" && rs.Type != "AAAA" {
		return false
	}
	return ns != nil && slices.Contains(ns.Values, rs.Name)
}

// dnameAbove returns the DNAME of zone z that name lies strictly below
// (the deepest, walking name's ancestors up to the apex), or nil.
func dnameAbove(name string, z *model.Zone, ix rrIndex) *model.RRset {
	for n := name; n != z.Name && n != "." && n != ""; {
		n = parentName(n)
		if d := ix.get(z, n, "DNAME"); d != nil {
			return d
		}
	}
	return nil
}

// parentName is name without its first label ("." for a top-level name).
func parentName(name string) string {
	_, rest, _ := strings.Cut(name, ".")
	if rest == "" {
		return "."
	}
	return rest
}

func typeSuffix(typ string) string {
	if typ == "" {
		return ""
	}
	return " " + typ
}

// zoneCut returns the zone, other than home, that name lies in and that
// is below home: a name there belongs to that zone, not to home.
func zoneCut(name, home string, zones map[string]*model.Zone) *model.Zone {
	for n := name; n != home && n != "." && n != ""; {
		if z, ok := zones[n]; ok {
			return z
		}
		i := strings.IndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[i+1:]
	}
	return nil
}

func sameWriter(a, b model.Writer) bool {
	return a.Kind == b.Kind && a.Tenant == b.Tenant && a.Element == b.Element
}

func writerPath(w model.Writer) string { return "tenants." + cuePath(w.Tenant) + "." + w.Element }

func describe(w model.Writer) string {
	switch w.Kind {
	case model.WriterVMPublish:
		return fmt.Sprintf("tenant %s's VM publish (%s)", w.Tenant, w.Element)
	default:
		return fmt.Sprintf("tenant %s's zone records (%s)", w.Tenant, w.Element)
	}
}
