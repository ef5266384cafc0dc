package powerdns

// A parent's plan shows the DS of a child signed in the same apply as a
// pending change: its value is known only once the child's step has
// made the key. The parent's Apply does not plan the zone again for it.
// It learns each pending child's DS (its keys, or what its step told),
// plans that one DS against the DS rrset the plan observed at the
// child's name, and adds it to the batch it was given; just before the
// PATCH, under the server's write lock, it reads those DS rrsets again
// and writes nothing if one is no longer what was observed
// (dsAsObserved). The rest of the batch is sent as planned, as every
// other zone's is.

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// observedDS is the DS rrset a parent's plan observed at a pending
// child's name: the server's answer for it, nil when it held none.
type observedDS struct {
	key   rrKey
	rrset *pdns.RRset
}

// pendingObserved is what obs showed at the name of each pending child.
func pendingObserved(obs *observation, pending []*model.Zone) []observedDS {
	var out []observedDS
	for _, c := range pending {
		k := dnsplan.NameType{Name: c.Name, Type: "DS"}
		o := observedDS{key: rrKey{c.Name, "DS"}}
		if l := obs.Sets[k]; l != nil {
			o.rrset = l.Provider.(*pdns.RRset)
		}
		out = append(out, o)
	}
	return out
}

// withPendingDS returns b with the DS of its pending children added
// (b itself is not changed), or an error when a child is still not
// signed, or writing its DS needs a gate this run did not acknowledge:
// the plan shown could not ask for it.
func (d *Driver) withPendingDS(ctx context.Context, step *graph.Step, b *batch, run *backends.Run) (*batch, error) {
	z := step.Zone
	in := backends.InputsOf(ctx)
	var still []*model.Zone
	want := &model.Zone{Name: z.Name, Tenant: z.Tenant, TTL: z.TTL, Provider: z.Provider}
	for _, child := range b.pendingDS {
		c, err := d.childDS(ctx, z, child, in, run)
		if err != nil {
			return nil, err
		}
		if len(c.DS) == 0 {
			still = append(still, child)
			continue
		}
		want.RRsets = append(want.RRsets, dnsplan.DSRRset(step, child, c.DS))
	}
	if err := dnsplan.CheckReplan(z.Name, still, nil, run); err != nil {
		return nil, err
	}
	seen := &pdns.Zone{Name: pdns.String(z.Name)}
	for _, o := range b.observedDS {
		if o.rrset != nil {
			seen.RRsets = append(seen.RRsets, *o.rrset)
		}
	}
	only := *step
	only.Zone = want
	ds := diff(&only, observe(seen), run)
	if err := dnsplan.CheckReplan(z.Name, nil, ds.changes, run); err != nil {
		return nil, err
	}
	out := *b
	out.pendingDS = nil
	out.deletes = slices.Concat(b.deletes, ds.deletes)
	out.replaces = slices.Concat(b.replaces, ds.replaces)
	out.expect = slices.Concat(b.expect, ds.expect)
	return &out, nil
}

// dsAsObserved reads again, just before the PATCH and under the
// server's write lock, the DS rrsets at the pending children's names,
// and refuses to write when one is not what the plan observed: the DS
// written there was planned against that.
func (d *Driver) dsAsObserved(ctx context.Context, b *batch, zone string) error {
	var changed []string
	for _, o := range b.observedDS {
		var live []pdns.RRset
		err := d.retry(ctx, func(ctx context.Context) error {
			var err error
			live, err = b.client.api.Records.Get(ctx, zone, o.key.name, pdns.RRTypePtr(pdns.RRType(o.key.typ)))
			return err
		})
		if err != nil {
			return fmt.Errorf("re-read %s %s before writing it: %w; nothing was written to zone %s", o.key.name, o.key.typ, err, zone)
		}
		var now *pdns.RRset
		for i := range live {
			if strings.EqualFold(pdns.StringValue(live[i].Name), o.key.name) && strings.EqualFold(string(derefType(live[i].Type)), o.key.typ) && len(live[i].Records) > 0 {
				now = &live[i]
			}
		}
		if !sameRRset(o.rrset, now) {
			changed = append(changed, o.key.name+" "+o.key.typ)
		}
	}
	if len(changed) > 0 {
		return &APIError{Class: backends.ClassConflict, Err: fmt.Errorf(
			"zone %s: %s changed since it was observed, and site would have written the DS planned against what was there; nothing was written: run site diff again",
			zone, strings.Join(changed, ", "))}
	}
	return nil
}

// sameRRset reports whether two answers for one rrset hold the same
// data, TTL and owner marker (nil, or no records, is none).
func sameRRset(a, b *pdns.RRset) bool {
	has := func(rs *pdns.RRset) bool { return rs != nil && len(rs.Records) > 0 }
	if !has(a) || !has(b) {
		return has(a) == has(b)
	}
	sum := func(rs *pdns.RRset) [32]byte {
		o := observe(&pdns.Zone{RRsets: []pdns.RRset{*rs}})
		for _, l := range o.Sets {
			s, _ := digest(l, nil)
			return s
		}
		return [32]byte{}
	}
	x, y := sum(a), sum(b)
	return bytes.Equal(x[:], y[:])
}
