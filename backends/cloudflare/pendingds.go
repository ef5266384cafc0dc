package cloudflare

// A plan can be completed when it is applied (dnsplan.Completer): a
// parent's plan shows the DS of a child signed in the same apply as a
// pending change, and a zone with an address a guest has not leased yet
// shows it waiting (backends/lease); their values are known only then.
// The Apply does not plan the zone again for them. It plans each such
// RRset against the records its plan observed at its name and type,
// lists those records again before it sends anything (asObserved) and
// sends nothing when they changed since, and otherwise adds the RRset
// to the operations it was given.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// Complete returns sp with rrsets added (see dnsplan.Completer).
func (d *Driver) Complete(ctx context.Context, sp *backends.StepPlan, rrsets []*model.RRset, run *backends.Run) (*backends.StepPlan, error) {
	det, err := backends.DetailOf[*detail](sp)
	if err != nil {
		return nil, err
	}
	nd, err := complete(sp.Step, det, rrsets, run)
	if err != nil {
		return nil, err
	}
	out := *sp
	return backends.WithDetail(&out, nd), nil
}

// complete returns det with rrsets among its operations, planned against
// the records det's observation showed at their names and types; det is
// not changed.
func complete(step *graph.Step, det *detail, rrsets []*model.RRset, run *backends.Run) (*detail, error) {
	z := step.Zone
	want := &model.Zone{Name: z.Name, Tenant: z.Tenant, TTL: z.TTL, Provider: z.Provider, RRsets: rrsets}
	var added []dnsplan.NameType
	for _, w := range rrsets {
		added = append(added, dnsplan.NameType{Name: w.Name, Type: w.Type})
	}
	only := *step
	only.Zone = want
	df, err := diff(&only, &observation{zoneID: det.zoneID, zone: z.Name, records: recordsAt(det.seen, added)}, run)
	if err != nil {
		return nil, err
	}
	if err := dnsplan.CheckCompletion(z.Name, nil, df.changes, run); err != nil {
		return nil, err
	}
	out := *det
	out.added = slices.Concat(det.added, added)
	out.addedWant = slices.Concat(det.addedWant, rrsets)
	out.ops = slices.Concat(det.ops, df.ops)
	out.expect = slices.Concat(det.expect, df.expect)
	return &out, nil
}

// withAdded returns step wanting also the RRsets added to det (det's
// plan ignored their names, not knowing their values), for a plan made
// again after a stale write (replan); step is not changed.
func withAdded(step *graph.Step, det *detail) *graph.Step {
	if len(det.addedWant) == 0 {
		return step
	}
	z := *step.Zone
	z.RRsets = slices.Clone(z.RRsets)
	for _, w := range det.addedWant {
		if z.RRset(w.Name, w.Type) == nil {
			z.RRsets = append(z.RRsets, w)
		}
	}
	slices.SortFunc(z.RRsets, dnsplan.Compare)
	z.Ignore = slices.DeleteFunc(slices.Clone(z.Ignore), func(r model.IgnoreRule) bool {
		return slices.ContainsFunc(det.addedWant, func(w *model.RRset) bool { return r.Name == w.Name && r.Type == w.Type })
	})
	sc := *step
	sc.Zone = &z
	return &sc
}

// recordsAt is those of records at one of keys.
func recordsAt(records []record, keys []dnsplan.NameType) []record {
	var out []record
	for _, r := range records {
		if slices.Contains(keys, dnsplan.NameType{Name: r.name, Type: r.typ}) {
			out = append(out, r)
		}
	}
	return out
}

// withPendingDS returns det with the DS of its pending children among
// its operations, or an error when a child is still not signed.
func (d *Driver) withPendingDS(ctx context.Context, step *graph.Step, det *detail, run *backends.Run) (*detail, error) {
	in := backends.InputsOf(ctx)
	ds, err := dnsplan.PendingDSRRsets(step, det.pendingDS, run, func(child *model.Zone) (dnsplan.ChildDS, error) {
		return dnsplan.SignerChildDS(in, child), nil
	})
	if err != nil {
		return nil, err
	}
	out, err := complete(step, det, ds, run)
	if err != nil {
		return nil, err
	}
	out.pendingDS = nil
	return out, nil
}

// asObserved lists the records at the names and types added to det
// when it was applied, and refuses when they are not those the plan
// observed: what is written there was planned against them.
func (d *Driver) asObserved(ctx context.Context, det *detail, zone string) error {
	if len(det.added) == 0 {
		return nil
	}
	var keys []expectation
	for _, k := range det.added {
		keys = append(keys, expectation{name: k.Name, typ: k.Type})
	}
	live, _, err := d.listChanged(ctx, det, zone, keys)
	if err != nil {
		return fmt.Errorf("re-read what it adds before writing it: %w; nothing was written to zone %s", err, zone)
	}
	line := func(r record) string {
		return fmt.Sprintf("%s %s %s %d %t %s", r.id, r.name, r.value, r.ttl, r.proxied, r.comment)
	}
	var changed []string
	for _, k := range det.added {
		var was, now []string
		for _, r := range recordsAt(det.seen, []dnsplan.NameType{k}) {
			was = append(was, line(r))
		}
		for _, r := range live[key(k.Name, k.Type)] {
			now = append(now, line(r))
		}
		slices.Sort(was)
		slices.Sort(now)
		if !slices.Equal(was, now) {
			changed = append(changed, k.Name+" "+k.Type)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("zone %s: %s changed since it was observed, and site would have written what it planned against what was there; nothing was written: run site diff again",
			zone, strings.Join(changed, ", "))
	}
	return nil
}
