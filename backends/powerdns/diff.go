package powerdns

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// batch is what Plan hands Apply: the changes for the user and the
// rrsets to send, DELETEs apart from REPLACEs so they can go first.
type batch struct {
	client     *client
	create     bool // the zone does not exist: POST it
	verifyAddr string
	changes    []plan.Change
	deletes    []pdns.RRset
	replaces   []pdns.RRset
	expect     []expectation
}

// expectation is what the DNS port must answer after apply.
type expectation struct {
	name, typ string
	ttl       uint32
	values    []string // wanted contents; empty with gone
	gone      bool     // no record of this type may remain at name
	// wildcard, with gone, is what a wildcard covering name serves
	// there after apply: an answer of exactly that is not the deleted
	// rrset.
	wildcard []string
}

// Key is the resource key of one rrset: dns/<zone>/<name>/<type>.
func Key(zone, name, typ string) string { return "dns/" + zone + "/" + name + "/" + typ }

// attrs are a change's Before or After. values is shared, not copied:
// nothing changes an observed or wanted list after it is made.
func attrs(ttl uint32, values []string) map[string]any {
	return map[string]any{"ttl": ttl, "values": values}
}

// conflicts reports whether two types cannot share a name: PowerDNS
// refuses a CNAME beside any other data (422 "Conflicts with
// pre-existing RRset").
func conflicts(a, b string) bool { return a != b && (a == "CNAME" || b == "CNAME") }

func ownerText(l *liveRRset) string {
	if l.owner == "" {
		return "written outside site (no owner marker)"
	}
	return "owned by site tenant " + l.owner
}

// diff compares what step wants with what was observed.
func diff(step *graph.Step, obs *observation, run *backends.Run) *batch {
	z := step.Zone
	tenant := step.Tenant
	b := &batch{}
	// room is how many changes the rest of the diff can make at most:
	// the first change sizes the slice by it, so a converged zone
	// allocates none and a zone created from empty allocates once.
	room := len(z.RRsets)
	// change returns an index, not a pointer: later appends may move
	// the slice.
	change := func(name, typ string, a plan.Action, imp plan.Impact, reason string) int {
		if b.changes == nil {
			b.changes = make([]plan.Change, 0, room+1)
		}
		b.changes = append(b.changes, plan.Change{Key: Key(z.Name, name, typ), Step: step.ID, Phase: step.Phase,
			Tenant: tenant, Action: a, Impact: imp, Reason: reason})
		return len(b.changes) - 1
	}
	marker := pdns.Comment{Account: pdns.String(MarkerAccount), Content: pdns.String(Marker(tenant))}
	// onlyMarker is shared by every rrset that carries no other comment
	// (all of them in a zone created from empty); nothing writes to it.
	onlyMarker := []pdns.Comment{marker}
	// ourComments keeps the comments of other writers and puts our
	// marker in place of any other site marker.
	ourComments := func(l *liveRRset) []pdns.Comment {
		var out []pdns.Comment
		if l != nil {
			for _, c := range l.comments {
				if pdns.StringValue(c.Account) != MarkerAccount {
					out = append(out, c)
				}
			}
		}
		if out == nil {
			return onlyMarker[:1:1]
		}
		return append(out, marker)
	}
	// The PATCH body's fields are pointers; these are shared rather than
	// allocated per rrset and record. The JSON encoder only reads them.
	replace := pdns.ChangeTypePtr(pdns.ChangeTypeReplace)
	enabled := pdns.Bool(false)
	types := map[string]*pdns.RRType{}

	// The compiler hands rrsets over sorted; sort only when they are not,
	// since sorting is a real part of a 10,000-rrset diff.
	wanted := z.RRsets
	if !slices.IsSortedFunc(wanted, cmpRRset) {
		wanted = slices.Clone(wanted)
		slices.SortFunc(wanted, cmpRRset)
	}
	// One lookup per wanted rrset; marking the live ones wanted first
	// lets the conflict and delete checks below do without a set of keys.
	live := make([]*liveRRset, len(wanted))
	for i, w := range wanted {
		if l := obs.rrsets[rrKey{w.Name, w.Type}]; l != nil {
			l.wanted = true
			live[i] = l
		}
	}

	for i, w := range wanted {
		room = len(wanted) - i
		values := w.Values
		if !slices.IsSorted(values) {
			values = slices.Sorted(slices.Values(values))
		}
		l := live[i]
		var ci int
		comments := []pdns.Comment(nil) // nil: leave the server's comments as they are
		records := true
		switch {
		case l == nil || !l.hasData():
			ci = change(w.Name, w.Type, plan.ActionCreate, plan.ImpactLive, "")
			comments = ourComments(l)
		case l.owner == tenant:
			if l.ttl == w.TTL && !l.disabled && sameValues(w.Type, l.values, values) {
				continue
			}
			ci = change(w.Name, w.Type, plan.ActionUpdate, plan.ImpactLive, "")
			b.changes[ci].Before = attrs(l.ttl, l.values)
		case l.ttl == w.TTL && !l.disabled && sameValues(w.Type, l.values, values):
			ci = change(w.Name, w.Type, plan.ActionAdopt, plan.ImpactNone,
				fmt.Sprintf("identical data %s: marked as ours, served data unchanged", ownerText(l)))
			c := &b.changes[ci]
			if l.owner != "" {
				// Taking over another tenant's name is a decision for a
				// human even when the data is the same.
				c.Impact = plan.ImpactOverwrite
				c.Gates = []plan.Gate{plan.GateDNSOverwrite}
			}
			c.Before = attrs(l.ttl, l.values)
			comments = ourComments(l)
			records = false
		default:
			ci = change(w.Name, w.Type, plan.ActionUpdate, plan.ImpactOverwrite,
				fmt.Sprintf("replaces other content %s", ownerText(l)))
			c := &b.changes[ci]
			c.Gates = []plan.Gate{plan.GateDNSOverwrite}
			c.Before = attrs(l.ttl, l.values)
			comments = ourComments(l)
		}
		b.changes[ci].After = attrs(w.TTL, values)

		// Foreign data of a type that cannot share the name with ours
		// must go in the same PATCH, before ours is written. Only a
		// CNAME conflicts with another type, so for any other wanted
		// type one lookup answers without indexing the zone by name.
		others := []*liveRRset(nil)
		if w.Type == "CNAME" {
			others = obs.atName(w.Name)
		} else if c := obs.rrsets[rrKey{w.Name, "CNAME"}]; c != nil {
			others = []*liveRRset{c}
		}
		for _, other := range others {
			if !conflicts(w.Type, other.typ) || other.wanted || !other.hasData() || other.owner == tenant {
				continue
			}
			if other.typ == "NS" && other.name == z.Name {
				continue // the apex NS is never removed
			}
			if !other.giveWay {
				other.giveWay = true
				di := change(other.name, other.typ, plan.ActionDelete, plan.ImpactOverwrite,
					fmt.Sprintf("%s %s gives way to the wanted %s", other.typ, ownerText(other), w.Type))
				dc := &b.changes[di]
				dc.Gates = []plan.Gate{plan.GateDNSOverwrite}
				dc.Before = attrs(other.ttl, other.values)
				b.deletes = append(b.deletes, deleteSet(other.rrKey))
				b.expect = append(b.expect, expectation{name: other.name, typ: other.typ, gone: true})
			}
			c := &b.changes[ci]
			c.Impact = plan.ImpactOverwrite
			c.Gates = []plan.Gate{plan.GateDNSOverwrite}
			if c.Reason == "" {
				c.Reason = fmt.Sprintf("replaces a foreign %s at this name", other.typ)
			}
		}

		typ := types[w.Type]
		if typ == nil {
			typ = pdns.RRTypePtr(pdns.RRType(w.Type))
			types[w.Type] = typ
		}
		// Name, TTL and contents point into the wanted rrset, which
		// nothing changes once the compiler made it.
		rs := pdns.RRset{Name: &w.Name, Type: typ, ChangeType: replace, Comments: comments}
		if records {
			rs.TTL = &w.TTL
			rs.Records = make([]pdns.Record, len(values))
			for i := range values {
				rs.Records[i] = pdns.Record{Content: &values[i], Disabled: enabled}
			}
		}
		if b.replaces == nil {
			b.replaces = make([]pdns.RRset, 0, room)
			b.expect = slices.Grow(b.expect, room)
		}
		b.replaces = append(b.replaces, rs)
		b.expect = append(b.expect, expectation{name: w.Name, typ: w.Type, ttl: w.TTL, values: values})
	}

	// Deletes: only what carries this tenant's marker and is no longer
	// wanted. The observation is complete here (one GET of the whole
	// zone succeeded), which is what makes deleting safe at all.
	ours := 0
	var deletes []int
	var gone []rrKey
	for k, l := range obs.rrsets {
		if l.owner != tenant {
			continue
		}
		ours++
		if !l.wanted && !l.giveWay {
			gone = append(gone, k)
		}
	}
	slices.SortFunc(gone, func(a, b rrKey) int { return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.typ, b.typ)) })
	for _, k := range gone {
		l := obs.rrsets[k]
		if k.typ == "NS" && k.name == z.Name {
			continue // the apex NS is never removed: the zone would stop working
		}
		ci := change(k.name, k.typ, plan.ActionDelete, plan.ImpactLive, "no longer in the spec")
		b.changes[ci].Before = attrs(l.ttl, l.values)
		deletes = append(deletes, ci)
		b.deletes = append(b.deletes, deleteSet(k))
		if l.hasData() {
			b.expect = append(b.expect, expectation{name: k.name, typ: k.typ, gone: true})
		}
	}
	wildcardAnswers(b.expect, wanted, obs)
	if ours >= run.DeleteManyMin && len(deletes)*100 > run.DeleteManyPercent*ours {
		for _, ci := range deletes {
			c := &b.changes[ci]
			c.Gates = append(c.Gates, plan.GateDNSDeleteMany)
			c.Reason = fmt.Sprintf("no longer in the spec; %d of the %d rrsets site owns in this zone go at once", len(deletes), ours)
		}
	}
	return b
}

// wildcardAnswers fills, for each rrset expected gone, what a wildcard
// of the zone will serve at its name after apply: the server answers a
// deleted name a wildcard covers from the wildcard, and verify must not
// read that synthesised answer as the delete having failed. The nearest
// wildcard above the name is taken (wanted, else live and not deleted);
// when the name is no longer covered the server answers nothing, which
// verify accepts anyway.
func wildcardAnswers(expect []expectation, wanted []*model.RRset, obs *observation) {
	gone := map[rrKey]bool{}
	for _, e := range expect {
		if e.gone {
			gone[rrKey{e.name, e.typ}] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	wild := map[rrKey][]string{}
	for k, l := range obs.rrsets {
		if strings.HasPrefix(k.name, "*.") && l.hasData() && !l.disabled && !gone[k] {
			wild[k] = l.values
		}
	}
	for _, w := range wanted {
		if strings.HasPrefix(w.Name, "*.") {
			wild[rrKey{w.Name, w.Type}] = w.Values
		}
	}
	if len(wild) == 0 {
		return
	}
	for i := range expect {
		e := &expect[i]
		if !e.gone {
			continue
		}
		for parent := e.name; ; {
			_, rest, ok := strings.Cut(parent, ".")
			if !ok || rest == "" {
				break
			}
			parent = rest
			k := rrKey{"*." + parent, e.typ}
			if k.name == e.name {
				continue // the deleted rrset is this wildcard itself
			}
			if v, ok := wild[k]; ok {
				e.wildcard = v
				break
			}
		}
	}
}

func deleteSet(k rrKey) pdns.RRset {
	return pdns.RRset{Name: pdns.String(k.name), Type: pdns.RRTypePtr(pdns.RRType(k.typ)),
		ChangeType: pdns.ChangeTypePtr(pdns.ChangeTypeDelete)}
}

func cmpRRset(a, b *model.RRset) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type))
}
