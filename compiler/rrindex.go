package compiler

import "github.com/site-tools/site/compiler/model"

// The checks after evaluation ask a zone, for each of its names, what
// it holds at that name's ancestors: an NS (a cut), a DNAME, a
// wildcard. model.Zone.RRset answers by scanning every RRset, so a
// check that asks it per RRset is quadratic in the zone's size: 30,000
// names each delegated to a server below another cut (a 242-byte spec,
// with a comprehension) took 39 s. An rrIndex answers in constant
// time; it is built once a zone's RRsets are final (a VM's publish
// adds some after the zone's own records), by the caller that asks.

// rrKey is an owner name and a type; the type "" stands for the first
// RRset at the name, whatever its type.
type rrKey struct{ name, typ string }

// rrIndex holds a zone's RRsets by name and type. A nil rrIndex is no
// index: get falls back to scanning the zone.
type rrIndex map[rrKey]*model.RRset

// indexRRsets indexes z's RRsets, keeping the first at each name and
// type as model.Zone.RRset finds it.
func indexRRsets(z *model.Zone) rrIndex {
	ix := make(rrIndex, 2*len(z.RRsets))
	for _, rs := range z.RRsets {
		for _, k := range []rrKey{{rs.Name, rs.Type}, {rs.Name, ""}} {
			if _, ok := ix[k]; !ok {
				ix[k] = rs
			}
		}
	}
	return ix
}

// get returns z's RRset at name of type typ (any type for ""), or nil.
func (ix rrIndex) get(z *model.Zone, name, typ string) *model.RRset {
	if ix != nil {
		return ix[rrKey{name, typ}]
	}
	for _, rs := range z.RRsets {
		if rs.Name == name && (typ == "" || rs.Type == typ) {
			return rs
		}
	}
	return nil
}

// zoneIndexes builds each zone's index on first use and keeps it: the
// checks between tenants run once every zone is complete.
type zoneIndexes map[*model.Zone]rrIndex

func (zi zoneIndexes) of(z *model.Zone) rrIndex {
	ix, ok := zi[z]
	if !ok {
		ix = indexRRsets(z)
		zi[z] = ix
	}
	return ix
}
