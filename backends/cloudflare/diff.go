package cloudflare

import (
	"fmt"
	"sort"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// opKind orders operations the way the batch endpoint runs them.
type opKind int

const (
	opDelete opKind = iota
	opPatch
	opPut
	opPost
)

// op is one record operation of a batch.
type op struct {
	kind opKind
	id   string // record id, for deletes, patches and puts
	body body
}

// Key is the resource key of one RRset: dns/<zone>/<name>/<type>, as the
// PowerDNS backend writes it.
func Key(zone, name, typ string) string { return "dns/" + zone + "/" + name + "/" + typ }

type rrKey struct{ name, typ string }

// diffResult is the plan of one zone.
type diffResult struct {
	changes []plan.Change
	ops     []op
}

func attrs(ttl uint32, values []string) map[string]any {
	return map[string]any{"ttl": ttl, "values": append([]string{}, values...)}
}

func liveAttrs(recs []record) map[string]any {
	if len(recs) == 0 {
		return nil
	}
	vals := make([]string, 0, len(recs))
	for _, r := range recs {
		vals = append(vals, r.value)
	}
	sort.Strings(vals)
	m := attrs(recs[0].ttl, vals)
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

// owners names who wrote recs, for Before and reasons.
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
	return fmt.Sprint(out)
}

// conflicts reports whether Cloudflare refuses types a and b at one
// name: a CNAME beside an A, AAAA or another CNAME (81053/81054).
func conflicts(a, b string) bool {
	addr := func(t string) bool { return t == "A" || t == "AAAA" }
	return a != b && ((a == "CNAME" && (addr(b) || b == "CNAME")) || (b == "CNAME" && addr(a)))
}

// diff compares the step's wanted RRsets with the live records.
func diff(step *graph.Step, live []record, run *backends.Run) (*diffResult, error) {
	z := step.Zone
	tenant := step.Tenant
	marker := Marker(tenant)
	out := &diffResult{changes: []plan.Change{}}
	// change returns an index, not a pointer: later appends may move
	// the slice.
	change := func(k rrKey, a plan.Action, imp plan.Impact, reason string) int {
		out.changes = append(out.changes, plan.Change{Key: Key(z.Name, k.name, k.typ), Step: step.ID, Phase: step.Phase,
			Tenant: tenant, Action: a, Impact: imp, Reason: reason})
		return len(out.changes) - 1
	}
	byKey := map[rrKey][]record{}
	typesAt := map[string][]string{}
	for _, r := range live {
		k := rrKey{r.name, r.typ}
		if _, ok := byKey[k]; !ok {
			typesAt[r.name] = append(typesAt[r.name], r.typ)
		}
		byKey[k] = append(byKey[k], r)
	}
	wanted := map[rrKey]bool{}
	for _, rs := range z.RRsets {
		wanted[rrKey{rs.Name, rs.Type}] = true
	}
	var changes []*pendingChange
	// Foreign RRsets that must go because a wanted type cannot share
	// their name.
	conflictDeletes := map[rrKey]string{}

	for _, rs := range z.RRsets {
		k := rrKey{rs.Name, rs.Type}
		recs := byKey[k]
		for _, t := range typesAt[rs.Name] {
			ok := rrKey{rs.Name, t}
			if conflicts(rs.Type, t) && !wanted[ok] {
				conflictDeletes[ok] = rs.Type
			}
		}
		pc := &pendingChange{key: k, before: liveAttrs(recs), after: attrs(rs.TTL, rs.Values)}
		used := make([]bool, len(recs))
		var missing []string
		for _, v := range rs.Values {
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
			same := r.ttl == rs.TTL && !r.proxied
			switch {
			case r.owner == tenant && same:
			case r.owner == tenant:
				pc.update = true
				pc.ops = append(pc.ops, op{kind: opPatch, id: r.id, body: body{ID: r.id, TTL: int(rs.TTL), Proxied: new(bool)}})
			case same:
				// Identical foreign data: mark it ours, change nothing
				// it serves. Another tenant's marker is a claim, though:
				// taking it over is a decision for a human.
				pc.adopt = true
				pc.takeover = pc.takeover || r.owner != ""
				m := marker
				pc.ops = append(pc.ops, op{kind: opPatch, id: r.id, body: body{ID: r.id, Comment: &m}})
			default:
				pc.overwrite = true
				b, err := toCloudflare(rs.Name, rs.Type, v, rs.TTL, marker)
				if err != nil {
					return nil, err
				}
				b.ID = r.id
				pc.ops = append(pc.ops, op{kind: opPut, id: r.id, body: b})
			}
		}
		// Live records with other content: reuse them for the missing
		// values (a patch of ours, a put over a foreign one), delete the
		// rest, create what is still missing.
		for i, r := range recs {
			if used[i] {
				continue
			}
			ours := r.owner == tenant
			if ours {
				pc.update = true
			} else {
				pc.overwrite = true
			}
			if len(missing) > 0 {
				b, err := toCloudflare(rs.Name, rs.Type, missing[0], rs.TTL, marker)
				if err != nil {
					return nil, err
				}
				missing = missing[1:]
				b.ID = r.id
				kind := opPatch
				if !ours {
					kind = opPut
				}
				pc.ops = append(pc.ops, op{kind: kind, id: r.id, body: b})
				continue
			}
			pc.ops = append(pc.ops, op{kind: opDelete, id: r.id})
		}
		// A value added beside live records changes what the RRset
		// serves: an update of ours, an overwrite of anyone else's.
		if len(missing) > 0 && len(recs) > 0 {
			for _, r := range recs {
				if r.owner == tenant {
					pc.update = true
				} else {
					pc.overwrite = true
				}
			}
		}
		for _, v := range missing {
			b, err := toCloudflare(rs.Name, rs.Type, v, rs.TTL, marker)
			if err != nil {
				return nil, err
			}
			pc.ops = append(pc.ops, op{kind: opPost, body: b})
		}
		pc.create = len(recs) == 0
		pc.foreign = owners(recs)
		changes = append(changes, pc)
	}

	// RRsets the spec no longer wants: only records with our marker go.
	ownedKeys := map[rrKey]bool{}
	for _, r := range live {
		if r.owner == tenant {
			ownedKeys[rrKey{r.name, r.typ}] = true
		}
	}
	var deletes []int
	keys := make([]rrKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].name != keys[j].name {
			return keys[i].name < keys[j].name
		}
		return keys[i].typ < keys[j].typ
	})
	for _, pc := range changes {
		if len(pc.ops) == 0 {
			continue
		}
		var ci int
		switch {
		case pc.create:
			ci = change(pc.key, plan.ActionCreate, plan.ImpactLive, "")
		case pc.overwrite:
			ci = change(pc.key, plan.ActionUpdate, plan.ImpactOverwrite,
				fmt.Sprintf("foreign %s records at %s (owner %s) differ from the spec", pc.key.typ, pc.key.name, ownerOrNobody(pc.foreign)))
			out.changes[ci].Gates = []plan.Gate{plan.GateDNSOverwrite}
		case pc.takeover && !pc.update:
			ci = change(pc.key, plan.ActionAdopt, plan.ImpactOverwrite,
				fmt.Sprintf("identical %s records at %s are owned by another site tenant (%s): marking them as ours takes them over", pc.key.typ, pc.key.name, pc.foreign))
			out.changes[ci].Gates = []plan.Gate{plan.GateDNSOverwrite}
		case pc.takeover:
			ci = change(pc.key, plan.ActionUpdate, plan.ImpactOverwrite,
				fmt.Sprintf("%s records at %s are partly owned by another site tenant (%s)", pc.key.typ, pc.key.name, pc.foreign))
			out.changes[ci].Gates = []plan.Gate{plan.GateDNSOverwrite}
		case pc.update:
			ci = change(pc.key, plan.ActionUpdate, plan.ImpactLive, "")
		case pc.adopt:
			ci = change(pc.key, plan.ActionAdopt, plan.ImpactNone, "identical record written outside site: marking it as ours")
		default:
			// Every op above sets one of the flags; an op without a
			// change would be sent without being shown.
			return nil, fmt.Errorf("zone %s: %s %s: operations planned without a change to show (a bug in site; please report it)", z.Name, pc.key.name, pc.key.typ)
		}
		c := &out.changes[ci]
		c.Before, c.After = pc.before, pc.after
		out.ops = append(out.ops, pc.ops...)
	}
	for _, k := range keys {
		if wanted[k] {
			continue
		}
		recs := byKey[k]
		if wantedType, ok := conflictDeletes[k]; ok {
			var ops []op
			foreign := false
			for _, r := range recs {
				ops = append(ops, op{kind: opDelete, id: r.id})
				foreign = foreign || r.owner != tenant
			}
			reason := fmt.Sprintf("cannot stay beside the wanted %s at this name", wantedType)
			c := &out.changes[change(k, plan.ActionDelete, plan.ImpactLive, reason)]
			if foreign {
				c.Impact = plan.ImpactOverwrite
				c.Reason = fmt.Sprintf("foreign %s (owner %s) %s", k.typ, ownerOrNobody(owners(recs)), reason)
				c.Gates = []plan.Gate{plan.GateDNSOverwrite}
			}
			c.Before = liveAttrs(recs)
			out.ops = append(out.ops, ops...)
			continue
		}
		if !ownedKeys[k] {
			continue
		}
		var ours []record
		for _, r := range recs {
			if r.owner == tenant {
				ours = append(ours, r)
				out.ops = append(out.ops, op{kind: opDelete, id: r.id})
			}
		}
		ci := change(k, plan.ActionDelete, plan.ImpactLive, "no longer in the spec")
		out.changes[ci].Before = liveAttrs(ours)
		deletes = append(deletes, ci)
	}
	// Deletion safety: many deletes of our RRsets at once is more
	// likely a mistake in the spec than an intent.
	if n := len(ownedKeys); n >= run.DeleteManyMin && len(deletes)*100 > n*run.DeleteManyPercent {
		for _, ci := range deletes {
			c := &out.changes[ci]
			c.Gates = append(c.Gates, plan.GateDNSDeleteMany)
			c.Reason = fmt.Sprintf("no longer in the spec; %d of this tenant's %d RRsets in the zone would be deleted (more than %d%%)", len(deletes), n, run.DeleteManyPercent)
		}
	}
	return out, nil
}

// pendingChange gathers the operations of one wanted RRset.
type pendingChange struct {
	key                              rrKey
	before, after                    map[string]any
	ops                              []op
	create, update, adopt, overwrite bool
	// takeover: identical records another tenant's marker claims.
	takeover bool
	foreign  string
}

func ownerOrNobody(o string) string {
	if o == "" {
		return "none: no site marker"
	}
	return o
}
