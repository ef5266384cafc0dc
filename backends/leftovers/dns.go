package leftovers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// zoneIndex says where the loaded tenants declare each zone: by the
// provider's endpoint (two providers of site.cue may be one server),
// and as "tenant T on provider P" for the report.
type zoneIndex struct {
	on    map[string]map[string]bool // endpoint -> zone -> declared there
	where map[string][]string        // zone -> "tenant T on provider P"
	ids   map[string]bool            // Cloudflare zone ids declared (noteIDs)
}

func declaredZones(in Input) zoneIndex {
	idx := zoneIndex{on: map[string]map[string]bool{}, where: map[string][]string{}, ids: map[string]bool{}}
	for _, t := range in.Tenants {
		for _, z := range t.Zones {
			// A zone on several providers is declared on each.
			for _, p := range z.Served() {
				key := endpoint(p)
				if idx.on[key] == nil {
					idx.on[key] = map[string]bool{}
				}
				idx.on[key][z.Name] = true
				idx.where[z.Name] = append(idx.where[z.Name], fmt.Sprintf("tenant %s on provider %s", t.Name, p.Name))
			}
		}
	}
	return idx
}

// endpoint identifies the server (PowerDNS) or account (Cloudflare) a
// provider reaches, so that two names for one are looked at once.
func endpoint(p model.Provider) string {
	switch {
	case p.PowerDNS != nil:
		return "powerdns " + model.ServerURL(model.PowerDNSBase(p.PowerDNS.URL)) + " " + p.PowerDNS.Server
	case p.Cloudflare != nil:
		return "cloudflare " + model.ServerURL(p.Cloudflare.APIURL) + " " + p.Cloudflare.Token.Source()
	}
	return "provider " + p.Name
}

// providerList is one provider's zones as listed, before any is read;
// report holds what is known of it so far (an error, or SameAs).
type providerList struct {
	p      model.Provider
	rd     backends.MarkReader
	listed []backends.ListedZone
	report ProviderReport
}

// list lists p's zones; an error is the report's.
func (f *Finder) list(ctx context.Context, p model.Provider) *providerList {
	l := &providerList{p: p, report: ProviderReport{Name: p.Name, Kind: p.Kind()}}
	l.rd = f.DNS[p.Kind()]
	if l.rd == nil {
		l.report.Error = fmt.Sprintf("this build of site has no %s backend that can list zones", p.Kind())
		return l
	}
	if ctx.Err() != nil {
		l.report.Error = notRead(ctx)
		return l
	}
	if f.Prepare != nil {
		if err := f.Prepare(ctx, p); err != nil {
			l.report.Error = err.Error()
			return l
		}
	}
	listed, err := l.rd.ListZones(ctx, p, f.Run)
	if err != nil {
		l.report.Error = err.Error()
		return l
	}
	l.listed = listed
	l.report.Listed = len(listed)
	return l
}

// noteIDs records the Cloudflare zone ids of the zones the tenants
// declare, as the providers they declare them on list them: an id is
// one zone of one account, whichever token lists it. PowerDNS's ids
// are names, the same on every server, so they say nothing of this.
func (idx *zoneIndex) noteIDs(lists []*providerList) {
	for _, l := range lists {
		if l.p.Cloudflare == nil {
			continue
		}
		declared := idx.on[endpoint(l.p)]
		for _, z := range l.listed {
			if declared[z.Name] {
				idx.ids[z.ID] = true
			}
		}
	}
}

// read reads each zone of l that no loaded tenant declares on its
// provider, ZoneReadsAtOnce at a time; the report keeps the listing's
// order (by name), whichever read answers first.
func (f *Finder) read(ctx context.Context, l *providerList, idx zoneIndex, loaded map[string]bool) ProviderReport {
	rep := l.report
	todo := undeclared(l, idx)
	reads := make([]zoneRead, len(todo))
	var eg errgroup.Group
	eg.SetLimit(ZoneReadsAtOnce)
	for i, z := range todo {
		eg.Go(func() error {
			reads[i] = f.readZone(ctx, l, z, idx, loaded)
			return nil
		})
	}
	_ = eg.Wait() // each read reports through reads
	for _, r := range reads {
		if r.asked {
			rep.Read++
		}
		if r.report != nil {
			rep.Zones = append(rep.Zones, *r.report)
		}
	}
	return rep
}

// undeclared is the zones of l no loaded tenant declares on its
// provider: its tenant's runs read a declared one.
func undeclared(l *providerList, idx zoneIndex) []backends.ListedZone {
	declared := idx.on[endpoint(l.p)]
	var out []backends.ListedZone
	for _, z := range l.listed {
		if !declared[z.Name] && (l.p.Cloudflare == nil || !idx.ids[z.ID]) {
			out = append(out, z)
		}
	}
	return out
}

// zoneRead is what reading one zone came to: asked says the provider
// was asked for it (the run's end may come first), report is nil when
// the zone holds no marker.
type zoneRead struct {
	asked  bool
	report *ZoneReport
}

// readZone reads z's markers. A zone whose turn comes after the run
// was interrupted is said not read, without asking.
func (f *Finder) readZone(ctx context.Context, l *providerList, z backends.ListedZone, idx zoneIndex, loaded map[string]bool) zoneRead {
	if ctx.Err() != nil {
		return zoneRead{report: &ZoneReport{Zone: z.Name, Error: notRead(ctx)}}
	}
	p := l.p
	marks, err := l.rd.ZoneMarks(ctx, p, z, f.Run)
	switch {
	case err != nil:
		return zoneRead{asked: true, report: &ZoneReport{Zone: z.Name, Error: err.Error()}}
	case len(marks) > 0:
		return zoneRead{asked: true, report: &ZoneReport{Zone: z.Name, DeclaredOn: idx.where[z.Name],
			Owners: owners(marks, loaded), Remove: f.Command("disown", p.Kind(), z.Name, "--provider", p.Name, "--ack", "GATE-DNS-DISOWN")}}
	}
	return zoneRead{asked: true}
}

// owners groups marks by tenant, in tenant order.
func owners(marks []backends.Mark, loaded map[string]bool) []Owner {
	by := map[string]*Owner{}
	for _, m := range marks {
		o := by[m.Tenant]
		if o == nil {
			o = &Owner{Tenant: m.Tenant, Loaded: loaded[m.Tenant], Names: []string{}}
			by[m.Tenant] = o
		}
		o.Count++
		if len(o.Names) < maxNames {
			o.Names = append(o.Names, m.Name+" "+m.Type)
		}
	}
	out := make([]Owner, 0, len(by))
	for _, t := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[t])
	}
	return out
}

// notRead says why what ctx's end left unread was not read.
func notRead(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.Canceled) {
		return "not read: the run was interrupted"
	}
	return fmt.Sprintf("not read: %v", context.Cause(ctx))
}

// ZoneReadsAtOnce bounds the zones of one provider read at once, as
// the apply lock's reads are bounded (cmd/site's lockReadsAtOnce).
const ZoneReadsAtOnce = 8
