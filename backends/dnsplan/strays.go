package dnsplan

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// StrayAdvice ends the note on strays: why they stay, and the two ways
// to be rid of them.
const StrayAdvice = "no run of site changes or deletes them, as no other tenant's spec holds this zone and this one's deletes only its own; " +
	"to remove them, write them into this zone's records (taking them over needs GATE-DNS-OVERWRITE) and drop them in the next apply, " +
	"or remove their markers with site disown and delete them by hand"

// strays are the RRsets of a zone that another tenant's marker names
// and that the spec does not want, by who owns them (OwnerText). A zone
// is one tenant's, so the tenant a stray names never reads the zone and
// the one that does deletes only its own: without a note they would be
// served on, unseen by every plan. They are what a zone handed to
// another tenant, or a renamed tenant, leaves behind of the records the
// new holder does not declare.
type strays map[string][]NameType

// add takes l when it is a stray: data under a site marker that is not
// the planning tenant's (the caller checked), at a name and type the
// spec does not want, and not left to an ignore rule. Unmarked foreign
// data is no stray: it is the normal state of a zone site shares.
// The map is made on the first stray: a zone without any, as nearly
// every zone is, allocates nothing for them.
func (s *strays) add(l *RRset) {
	if l.Owner == "" || l.wanted || l.giveWay || l.ignored || !l.HasData() {
		return
	}
	if *s == nil {
		*s = strays{}
	}
	owner := l.OwnerText()
	(*s)[owner] = append((*s)[owner], l.NameType)
}

// maxStrayOwners is how many owners the notes name one by one; the
// rest are counted in one more note. A marker is whoever wrote it's,
// and one forged per record would otherwise make a note per record, on
// every diff of the zone.
const maxStrayOwners = 3

// notes are the plan's lines on the strays of zone, one per owner (the
// first maxStrayOwners by name, then one for the rest), each naming
// three of its RRsets at most: the note is on every diff until they are
// gone, and a renamed tenant's may be thousands.
func (s strays) notes(zone string) []string {
	var out []string
	owners := slices.Sorted(maps.Keys(s))
	named := len(owners)
	if named > maxStrayOwners+1 { // a note for one more is no shorter
		named = maxStrayOwners
	}
	for _, owner := range owners[:named] {
		sets := s[owner]
		slices.SortFunc(sets, func(a, b NameType) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type))
		})
		var names []string
		for _, nt := range sets {
			names = append(names, nt.Name+"/"+nt.Type)
		}
		count, verb, them := "1 RRset", "is", "it"
		if len(sets) > 1 {
			count, verb, them = fmt.Sprintf("%d RRsets", len(sets)), "are", "them"
		}
		out = append(out, fmt.Sprintf("%s in zone %s %s %s and the spec does not want %s (%s): %s", count, zone, verb, owner, them, firstFew(names), StrayAdvice))
	}
	if rest := owners[named:]; len(rest) > 0 {
		sets := 0
		var names []string
		for _, owner := range rest {
			sets += len(s[owner])
			names = append(names, tenantOf(owner))
		}
		out = append(out, fmt.Sprintf("%d RRsets in zone %s are owned by %d other site tenants (%s) and the spec does not want them: %s", sets, zone, len(rest), firstFew(names), StrayAdvice))
	}
	return out
}

// tenantOf is the tenant an owner text (RRset.OwnerText) names.
func tenantOf(owner string) string {
	for _, prefix := range []string{"owned by site tenant ", "owned in part by site tenant "} {
		if t, ok := strings.CutPrefix(owner, prefix); ok {
			return strings.TrimSuffix(t, ", the rest written outside site")
		}
	}
	return owner
}

// firstFew is the first three of names, and how many more there are.
func firstFew(names []string) string {
	list := strings.Join(names[:min(3, len(names))], ", ")
	if len(names) > 3 {
		list += fmt.Sprintf(" and %d more", len(names)-3)
	}
	return list
}
