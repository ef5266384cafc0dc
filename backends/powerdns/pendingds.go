package powerdns

// A plan can be completed when it is applied (dnsplan.Completer): a
// parent's plan shows the DS of a child signed in the same apply as a
// pending change, and a zone with an address a guest has not leased yet
// shows it waiting (backends/lease); their values are known only then.
// The Apply does not plan the zone again for them. It plans each such
// rrset against what the plan observed at its name and type, and adds
// it to the batch it was given; just before the PATCH, under the
// server's write lock, it reads those rrsets again and writes nothing if
// one is no longer what was observed (asObserved). The rest of the batch
// is sent as planned, as every other zone's is.

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

// observedRRset is what a plan observed at the name and type of an
// rrset added when it was applied: the server's answer for it, nil when
// it held none.
type observedRRset struct {
	key   rrKey
	rrset *pdns.RRset
}

// Complete returns sp with rrsets added (see dnsplan.Completer).
func (d *Driver) Complete(ctx context.Context, sp *backends.StepPlan, rrsets []*model.RRset, run *backends.Run) (*backends.StepPlan, error) {
	b, err := backends.DetailOf[*batch](sp)
	if err != nil {
		return nil, err
	}
	nb, err := d.complete(sp.Step, b, rrsets, run)
	if err != nil {
		return nil, err
	}
	out := *sp
	return backends.WithDetail(&out, nb), nil
}

// complete returns b with rrsets added, planned against what b's
// observation showed at their names and types; b is not changed.
func (d *Driver) complete(step *graph.Step, b *batch, rrsets []*model.RRset, run *backends.Run) (*batch, error) {
	z := step.Zone
	want := &model.Zone{Name: z.Name, Tenant: z.Tenant, TTL: z.TTL, Provider: z.Provider, RRsets: rrsets}
	seen := &pdns.Zone{Name: pdns.String(z.Name)}
	var observed []observedRRset
	for _, w := range rrsets {
		o := observedRRset{key: rrKey{w.Name, w.Type}}
		if l := b.obs.Sets[dnsplan.NameType{Name: w.Name, Type: w.Type}]; l != nil {
			o.rrset = l.Provider.(*pdns.RRset)
			seen.RRsets = append(seen.RRsets, *o.rrset)
		}
		observed = append(observed, o)
	}
	only := *step
	only.Zone = want
	add := diff(&only, observe(seen), run)
	if err := dnsplan.CheckCompletion(z.Name, nil, add.changes, run); err != nil {
		return nil, err
	}
	out := *b
	out.observed = slices.Concat(b.observed, observed)
	out.deletes = slices.Concat(b.deletes, add.deletes)
	out.replaces = slices.Concat(b.replaces, add.replaces)
	out.expect = slices.Concat(b.expect, add.expect)
	return &out, nil
}

// withPendingDS returns b with the DS of its pending children added, or
// an error when a child is still not signed.
func (d *Driver) withPendingDS(ctx context.Context, step *graph.Step, b *batch, run *backends.Run) (*batch, error) {
	in := backends.InputsOf(ctx)
	ds, err := dnsplan.PendingDSRRsets(step, b.pendingDS, run, func(child *model.Zone) (dnsplan.ChildDS, error) {
		return d.childDS(ctx, step.Zone, child, in, run)
	})
	if err != nil {
		return nil, err
	}
	out, err := d.complete(step, b, ds, run)
	if err != nil {
		return nil, err
	}
	out.pendingDS = nil
	return out, nil
}

// asObserved reads again, just before the PATCH and under the server's
// write lock, the rrsets added to the batch when it was applied, and
// refuses to write when one is not what the plan observed: it was
// planned against that.
func (d *Driver) asObserved(ctx context.Context, b *batch, zone string) error {
	var changed []string
	for _, o := range b.observed {
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
			"zone %s: %s changed since it was observed, and site would have written what it planned against what was there; nothing was written: run site diff again",
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
