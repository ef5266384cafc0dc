package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/visible"
)

// The text and Markdown forms show a step's changes under the step's
// heading (for DNS, the zone: "# dns/example.org. (tenant t)"), so a
// record's key need not repeat the zone, and a reason many changes of a
// step share (the delete gate of a zone emptied at once) is said once
// for all of them. The JSON form keeps every key and reason whole.

// displayKey is how c's key reads under its step's heading: a DNS
// record's key (dns/ZONE/NAME/TYPE) as its name relative to the zone,
// "@" for the apex, then its type ("www A", "@ MX"); any other key (a
// VM's, a zone's own creation) as it is. Escaped (package visible): a
// name read from a live zone is whoever wrote it's.
func displayKey(c Change) string {
	zone, isDNS := strings.CutPrefix(c.Step, "dns/")
	// A tenant's single names in another tenant's zone are a step of
	// their own, dns/ZONE@TENANT (graph.NamesStepID), keyed in ZONE.
	zone, _, _ = strings.Cut(zone, "@")
	rest, inStep := strings.CutPrefix(c.Key, "dns/"+zone+"/")
	i := strings.LastIndexByte(rest, '/')
	if !isDNS || !inStep || i <= 0 || i == len(rest)-1 {
		return visible.String(c.Key)
	}
	return visible.String(relativeName(rest[:i], zone)) + " " + visible.String(rest[i+1:])
}

// relativeName writes an absolute name inside zone as a spec writes it
// under the zone: "@" for the apex, the labels below it otherwise. A
// name outside the zone stays absolute, its trailing dot saying so.
func relativeName(name, zone string) string {
	switch {
	case name == zone:
		return "@"
	case strings.HasSuffix(name, "."+zone) && len(name) > len(zone)+1:
		return strings.TrimSuffix(name, "."+zone)
	}
	return name
}

// sharedReason is a reason that several changes of one step give,
// with the gates they need: shown once above them.
type sharedReason struct {
	gates  string // the gates, comma-separated
	reason string
	keys   []string // the changes' display keys, in plan order
}

// maxSharedKeys is how many changes a shared reason names before it
// counts the rest: each change is listed below it anyway, marked with
// the gate, and a zone of 10,000 records deleted at once must not make
// one line of them all.
const maxSharedKeys = 10

// sharedReasons finds the reasons that two or more gated changes of
// one step's group give, in the order they first appear; covered holds
// the indexes in group of the changes whose reason they say.
func sharedReasons(group []Change) (shared []*sharedReason, covered map[int]bool) {
	by := map[[2]string]*sharedReason{}
	var order []*sharedReason
	for _, c := range group {
		if len(c.Gates) == 0 || c.Reason == "" {
			continue
		}
		k := [2]string{gateList(c.Gates), c.Reason}
		s := by[k]
		if s == nil {
			s = &sharedReason{gates: k[0], reason: c.Reason}
			by[k] = s
			order = append(order, s)
		}
		s.keys = append(s.keys, displayKey(c))
	}
	covered = map[int]bool{}
	for i, c := range group {
		if len(c.Gates) > 0 && c.Reason != "" && len(by[[2]string{gateList(c.Gates), c.Reason}].keys) > 1 {
			covered[i] = true
		}
	}
	for _, s := range order {
		if len(s.keys) > 1 {
			shared = append(shared, s)
		}
	}
	return shared, covered
}

// writeShared writes s as the line above the changes it covers, e.g.
//
//	! GATE-DNS-DELETE-MANY for 5 changes (a A, b A, c A, d A, mail MX):
//	    no longer in the spec; 5 of the 5 RRsets ...
func writeShared(b *strings.Builder, s *sharedReason, paint func(code, s string) string) {
	names := s.keys
	more := ""
	if len(names) > maxSharedKeys {
		more = fmt.Sprintf(" and %d more", len(names)-maxSharedKeys)
		names = names[:maxSharedKeys]
	}
	fmt.Fprintf(b, "  %s %s for %d changes (%s%s):\n", paint(ansiBold, "!"), paint(ansiBold, s.gates),
		len(s.keys), strings.Join(names, ", "), more)
	fmt.Fprintf(b, "      %s\n", indentRest(s.reason, "      "))
}

// gateList names gates as a change's line does: "A, B".
func gateList(gates []Gate) string {
	names := make([]string, len(gates))
	for i, g := range gates {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

// writeStep writes one step's changes under its heading: the reasons
// they share first, then each change, without a reason said above.
// The apex's records come first, as in a zone file, after the zone's
// own creation: in plan order (by key) "@" would fall among the names
// that sort around the zone's.
func writeStep(b *strings.Builder, group []Change, paint func(code, s string) string) {
	group = apexFirst(group)
	shared, covered := sharedReasons(group)
	for _, s := range shared {
		writeShared(b, s, paint)
	}
	for i, c := range group {
		writeChange(b, c, !covered[i], paint)
	}
}

// apexFirst returns group with a step's own change (a zone's creation)
// first, then the records at the zone's apex, then the others, each
// part in plan order.
func apexFirst(group []Change) []Change {
	var own, apex, rest []Change
	for _, c := range group {
		zone, isDNS := strings.CutPrefix(c.Step, "dns/")
		switch {
		case c.Key == c.Step:
			own = append(own, c)
		case isDNS && strings.HasPrefix(c.Key, c.Step+"/"+zone+"/"): // dns/ZONE/ZONE/TYPE
			apex = append(apex, c)
		default:
			rest = append(rest, c)
		}
	}
	if len(own)+len(apex) == 0 {
		return group
	}
	return slices.Concat(own, apex, rest)
}

// KeyOnStep is c's key for a line that stands without its step's
// heading (a gate's refusal, apply's confirmation): the key, and for a
// DNS change its step when the key does not name it, a zone on several
// providers planning the same key on each (dns/ZONE@PROVIDER) and a
// tenant's single names (dns/ZONE@TENANT), so the line says where.
func (c Change) KeyOnStep() string {
	if !strings.HasPrefix(c.Step, "dns/") || !strings.HasPrefix(c.Key, "dns/") || c.Key == c.Step || strings.HasPrefix(c.Key, c.Step+"/") {
		return c.Key
	}
	return c.Key + " on " + c.Step
}
