package cloudflare

// A parent's plan shows the DS of a child signed in the same apply as a
// pending change: its value is known only once the child's step has
// told it. The parent's Apply does not plan the zone again for it: it
// plans that one DS against the DS records its plan observed at the
// child's name, reads those records again (dsAsObserved) and sends
// nothing when they changed since, and otherwise adds the DS to the
// operations it was given.

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

// pendingObserved is the DS records obs showed at the pending
// children's names.
func pendingObserved(obs *observation, pending []*model.Zone) []record {
	var out []record
	for _, r := range obs.records {
		if r.typ == "DS" && slices.ContainsFunc(pending, func(c *model.Zone) bool { return c.Name == r.name }) {
			out = append(out, r)
		}
	}
	return out
}

// withPendingDS returns det with the DS of its pending children among
// its operations (det itself is not changed), or an error when a child
// is still not signed, when writing its DS needs a gate this run did
// not acknowledge (the plan shown could not ask for it), or when the
// DS records observed at a child's name changed since.
func (d *Driver) withPendingDS(ctx context.Context, step *graph.Step, det *detail, run *backends.Run) (*detail, error) {
	z := step.Zone
	in := backends.InputsOf(ctx)
	var still []*model.Zone
	want := &model.Zone{Name: z.Name, Tenant: z.Tenant, TTL: z.TTL, Provider: z.Provider}
	for _, child := range det.pendingDS {
		c := dnsplan.SignerChildDS(in, child)
		if len(c.DS) == 0 {
			still = append(still, child)
			continue
		}
		want.RRsets = append(want.RRsets, dnsplan.DSRRset(step, child, c.DS))
	}
	if err := dnsplan.CheckReplan(z.Name, still, nil, run); err != nil {
		return nil, err
	}
	only := *step
	only.Zone = want
	df, err := diff(&only, &observation{zoneID: det.zoneID, zone: z.Name, records: det.observedDS}, run)
	if err != nil {
		return nil, err
	}
	if err := dnsplan.CheckReplan(z.Name, nil, df.changes, run); err != nil {
		return nil, err
	}
	if err := d.dsAsObserved(ctx, det, z.Name); err != nil {
		return nil, err
	}
	out := *det
	out.pendingDS = nil
	out.ops = slices.Concat(det.ops, df.ops)
	out.expect = slices.Concat(det.expect, df.expect)
	return &out, nil
}

// dsAsObserved lists the DS records at the pending children's names
// again and refuses when they are not those the plan observed: the DS
// written there was planned against them.
func (d *Driver) dsAsObserved(ctx context.Context, det *detail, zone string) error {
	var keys []expectation
	for _, c := range det.pendingDS {
		keys = append(keys, expectation{name: c.Name, typ: "DS"})
	}
	live, _, err := d.listChanged(ctx, det, zone, keys)
	if err != nil {
		return fmt.Errorf("re-read the DS records of its signed children before writing them: %w; nothing was written to zone %s", err, zone)
	}
	line := func(r record) string {
		return fmt.Sprintf("%s %s %s %d %t %s", r.id, r.name, r.value, r.ttl, r.proxied, r.comment)
	}
	var changed []string
	for _, c := range det.pendingDS {
		var was, now []string
		for _, r := range det.observedDS {
			if r.name == c.Name {
				was = append(was, line(r))
			}
		}
		for _, r := range live[key(c.Name, "DS")] {
			now = append(now, line(r))
		}
		slices.Sort(was)
		slices.Sort(now)
		if !slices.Equal(was, now) {
			changed = append(changed, c.Name+" DS")
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("zone %s: %s changed since it was observed, and site would have written the DS planned against what was there; nothing was written: run site diff again",
			zone, strings.Join(changed, ", "))
	}
	return nil
}
