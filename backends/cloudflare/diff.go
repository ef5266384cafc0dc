package cloudflare

import (
	"sort"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// opKind orders operations the way the batch endpoint runs them.
type opKind int

const (
	opDelete opKind = iota
	opPatch
	opPost
)

// op is one record operation of a batch. There are no puts: a PUT
// resets every field it does not send (a foreign record's tags, its
// settings such as flatten_cname), so an overwrite patches the fields
// site owns.
type op struct {
	kind opKind
	name string // canonical owner name, so a batch keeps a name's operations together
	id   string // record id, for deletes and patches
	body body
}

// diffResult is the plan of one zone.
type diffResult struct {
	changes []plan.Change
	ops     []op
	soa     map[string]any // the DNS settings PATCH body, nil when the SOA stays
	expect  []expectation  // what ops leave in the zone, for verify
	kept    dnsplan.Kept   // what the zone's ignore rules kept out of the plan
	notes   []string       // the planner's lines for the plan
}

// PlanHooks are Cloudflare's rules for the planner: values are compared in
// the canonical form fromCloudflare gives them, a CNAME conflicts only
// with an A, AAAA or another CNAME (81053/81054), each record carries
// its own marker, and Before says who owns each record and whether one
// is proxied.
func PlanHooks() dnsplan.Hooks {
	return dnsplan.Hooks{Conflicts: conflicts, Before: liveAttrs, PerRecord: true}
}

// conflicts reports whether Cloudflare refuses types a and b at one
// name: a CNAME beside an A, AAAA or another CNAME (81053/81054). An
// ALIAS is a CNAME at the apex on Cloudflare, so the same holds for it.
func conflicts(a, b string) bool {
	addr := func(t string) bool { return t == "A" || t == "AAAA" }
	cname := func(t string) bool { return t == "CNAME" || t == "ALIAS" }
	return a != b && ((cname(a) && (addr(b) || cname(b))) || (cname(b) && addr(a)))
}

func liveAttrs(l *dnsplan.RRset) map[string]any {
	m := dnsplan.Attrs(l)
	recs := records(l)
	if o := owners(recs); o != "" {
		m["owner"] = o
	}
	for _, r := range recs {
		if r.proxied {
			m["proxied"] = true
		}
	}
	return m
}

// owners names who wrote recs, for Before.
func owners(recs []record) string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		o := r.owner
		if o == "" {
			o = "(none)"
		}
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.Strings(out)
	if len(out) == 1 && out[0] == "(none)" {
		return ""
	}
	return strings.Join(out, ", ")
}

// diff plans the step's zone against the observation with the shared
// planner and encodes its decisions as record operations.
func diff(step *graph.Step, obs *observation, run *backends.Run) (*diffResult, error) {
	res := dnsplan.Plan(step, obs.rrsets(), run, PlanHooks())
	out := &diffResult{changes: res.Changes, kept: res.Kept, notes: res.Notes}
	if out.changes == nil {
		out.changes = []plan.Change{}
	}
	marker := Marker(step.Tenant)
	for _, o := range res.Ops {
		switch o.Kind {
		case dnsplan.GiveWay, dnsplan.Delete:
			// A Delete takes only the records carrying our marker: the
			// rest of the RRset was written by someone else.
			gone := expectation{name: o.Live.Name, typ: o.Live.Type, gone: true}
			for _, r := range records(o.Live) {
				if o.Kind == dnsplan.GiveWay || r.owner == step.Tenant {
					out.ops = append(out.ops, op{kind: opDelete, name: r.name, id: r.id})
					gone.ids = append(gone.ids, r.id)
				}
			}
			if len(gone.ids) > 0 {
				out.expect = append(out.expect, gone)
			}
		case dnsplan.Update:
			if o.Want.Type == "SOA" {
				body, err := soaPatch(o.Values[0])
				if err != nil {
					return nil, err
				}
				out.soa = body
				continue
			}
			fallthrough
		default:
			ops, err := writeOps(o, step.Tenant, marker)
			if err != nil {
				return nil, err
			}
			for i := range ops {
				ops[i].name = o.Want.Name
			}
			out.ops = append(out.ops, ops...)
			if len(ops) > 0 {
				out.expect = append(out.expect, expectation{name: o.Want.Name, typ: o.Want.Type, values: o.Values,
					ttl: o.Want.TTL, proxied: o.Want.Proxied, tenant: step.Tenant})
			}
		}
	}
	return out, nil
}

// writeOps turns one wanted RRset's decision into record operations.
// A live record with a wanted value is kept (ours and the same), patched
// (ours with another TTL or proxied; a marker-only patch of a foreign
// one being adopted) or overwritten (foreign, otherwise different: a
// patch of every field site owns, which leaves the record's tags and
// settings as they were). Live records with other content are reused
// for the missing values, the rest deleted, and what is
// still missing is posted. The planner decided, and gated, that all of
// this may happen.
func writeOps(o dnsplan.Op, tenant, marker string) ([]op, error) {
	w := o.Want
	var recs []record
	if o.Live != nil {
		recs = records(o.Live)
	}
	var ops []op
	used := make([]bool, len(recs))
	var missing []string
	for _, v := range o.Values {
		found := -1
		for i, r := range recs {
			if !used[i] && r.value == v {
				found = i
				break
			}
		}
		if found < 0 {
			missing = append(missing, v)
			continue
		}
		used[found] = true
		r := recs[found]
		same := r.ttl == w.TTL && r.proxied == w.Proxied
		switch {
		case r.owner == tenant && same:
		case r.owner == tenant:
			proxied := w.Proxied
			ops = append(ops, op{kind: opPatch, id: r.id, body: body{ID: r.id, TTL: int(w.TTL), Proxied: &proxied}})
		case same:
			m := marker
			ops = append(ops, op{kind: opPatch, id: r.id, body: body{ID: r.id, Comment: &m}})
		default:
			b, err := toCloudflare(w, v, marker)
			if err != nil {
				return nil, err
			}
			b.ID = r.id
			ops = append(ops, op{kind: opPatch, id: r.id, body: b})
		}
	}
	for i, r := range recs {
		if used[i] {
			continue
		}
		if len(missing) == 0 {
			ops = append(ops, op{kind: opDelete, id: r.id})
			continue
		}
		b, err := toCloudflare(w, missing[0], marker)
		if err != nil {
			return nil, err
		}
		missing = missing[1:]
		b.ID = r.id
		ops = append(ops, op{kind: opPatch, id: r.id, body: b})
	}
	for _, v := range missing {
		b, err := toCloudflare(w, v, marker)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op{kind: opPost, body: b})
	}
	return ops, nil
}
