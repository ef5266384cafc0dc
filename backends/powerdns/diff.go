package powerdns

import (
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
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
	// fresh are the rrsets created where the observation showed no
	// data: re-read before the PATCH (see recheck).
	fresh []rrKey
	// sign: the zone wants DNSSEC and has no active key; ds is the DS
	// of its active keys when it has them. pendingDS are signed
	// children without a key yet (see dnssec.go).
	sign      bool
	ds        []string
	pendingDS []*model.Zone
	// obs is what the plan observed, for the rrsets added when it is
	// applied (Complete), and observed what it showed at their names,
	// re-read before the PATCH (see pendingds.go).
	obs      *observation
	observed []observedRRset
	// created is the zone as the POST that created it answered, when
	// that one request wrote all of it: the same JSON a GET returns.
	created *pdns.Zone
	kept    dnsplan.Kept
	res     *dnsplan.Result // the plan, for the values ignore rules keep (Result.WithAlso)
	// notes are the planner's lines for the plan (dnsplan.Result.Notes).
	notes []string
}

// Kept names the live rrsets the zone's ignore rules kept out of the plan.
func (b *batch) Kept() dnsplan.Kept { return b.kept }

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

// PlanHooks are PowerDNS's rules for the planner: contents compare after
// norm, and a CNAME conflicts with any other type (422 "Conflicts with
// pre-existing RRset"), the planner's default.
func PlanHooks() dnsplan.Hooks { return dnsplan.Hooks{Same: sameValues} }

// diff compares what step wants with what was observed, through the
// shared planner, and encodes its decisions as one PATCH's rrsets.
func diff(step *graph.Step, obs *observation, run *backends.Run) *batch {
	res := dnsplan.Plan(step, obs.Observed, run, PlanHooks())
	b := &batch{changes: res.Changes, kept: res.Kept, notes: res.Notes, res: res}
	if len(res.Ops) == 0 {
		return b
	}
	marker := pdns.Comment{Account: pdns.String(MarkerAccount), Content: pdns.String(Marker(step.Tenant))}
	// onlyMarker is shared by every rrset that carries no other comment
	// (all of them in a zone created from empty); nothing writes to it.
	onlyMarker := []pdns.Comment{marker}
	// ourComments keeps the comments of other writers and puts our
	// marker in place of any other site marker.
	ourComments := func(l *dnsplan.RRset) []pdns.Comment {
		var out []pdns.Comment
		if l != nil {
			for _, c := range comments(l) {
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
	b.replaces = make([]pdns.RRset, 0, len(res.Ops))
	b.expect = make([]expectation, 0, len(res.Ops))
	for _, op := range res.Ops {
		switch op.Kind {
		case dnsplan.GiveWay, dnsplan.Delete:
			l := op.Live
			b.deletes = append(b.deletes, deleteSet(rrKey{l.Name, l.Type}))
			if l.HasData() {
				b.expect = append(b.expect, expectation{name: l.Name, typ: l.Type, gone: true})
			}
			continue
		}
		w, values := op.Want, op.Values
		typ := types[w.Type]
		if typ == nil {
			typ = pdns.RRTypePtr(pdns.RRType(w.Type))
			types[w.Type] = typ
		}
		// Name, TTL and contents point into the wanted rrset, which
		// nothing changes once the compiler made it. Comments nil leave
		// the server's as they are.
		rs := pdns.RRset{Name: &w.Name, Type: typ, ChangeType: replace}
		if op.Kind != dnsplan.Update {
			rs.Comments = ourComments(op.Live)
		}
		if op.Kind != dnsplan.Adopt {
			rs.TTL = &w.TTL
			rs.Records = make([]pdns.Record, len(values))
			for i := range values {
				rs.Records[i] = pdns.Record{Content: &values[i], Disabled: enabled}
			}
		}
		b.replaces = append(b.replaces, rs)
		if op.Kind == dnsplan.Create {
			b.fresh = append(b.fresh, rrKey{w.Name, w.Type})
		}
		b.expect = append(b.expect, expectation{name: w.Name, typ: w.Type, ttl: w.TTL, values: values})
	}
	wildcardAnswers(b.expect, step.Zone.RRsets, obs)
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
	for _, l := range obs.Sets {
		k := rrKey{l.Name, l.Type}
		if strings.HasPrefix(k.name, "*.") && l.HasData() && !l.Irregular && !gone[k] {
			wild[k] = l.Values
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
