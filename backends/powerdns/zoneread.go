package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// This file is how a zone step reads its zone: one GET, unless an
// earlier request of the same run already answered the question. Two
// answers are handed over (backends.Run.Leave, taken once):
//
//   - the POST that created a zone answers with the zone exactly as a GET
//     would (same JSON, measured on PowerDNS 4.7), so the observation
//     after the apply reads that answer instead of the server;
//   - a lock read that answered "no such zone" (the apply lock reads each
//     zone's metadata first) sends the observation straight to the zone
//     list, which alone decides that a zone is absent.
//
// Creating 200 zones from empty read each one three times before (lock
// entries, zone, zone again after the POST); now a few lock reads and two
// zone lists read them all (see LockStore.unlisted).

// zoneAnswer is what a request of this run learnt about a zone: the zone
// as the server holds it, or nil when the server said it has no such
// zone.
type zoneAnswer struct{ zone *pdns.Zone }

// answerKey is the key of zone's handed-over answer on its server.
func answerKey(zone *model.Zone) string {
	p := zone.Provider.PowerDNS
	return "powerdns zone " + p.URL + " " + p.Server + " " + strings.ToLower(zone.Name)
}

// observeZone reads zone: the live zone, or absent when the server has
// no such zone. A 404 is a zone to create only when the server's zone
// list lacks it too (see confirmAbsent).
func (d *Driver) observeZone(ctx context.Context, c *client, zone *model.Zone, run *backends.Run) (live *pdns.Zone, absent bool, err error) {
	left, wasLeft := runstate.Memos(run).Take(answerKey(zone))
	ahead, readAhead := runstate.Memos(run).Take(prefetchKey(zone))
	switch {
	case wasLeft && left.(zoneAnswer).zone != nil:
		return left.(zoneAnswer).zone, false, nil
	case readAhead:
		// The GET below, started earlier (Prefetch): its answer goes
		// the same way.
		live, err = ahead.(*prefetched).result(c)
	case wasLeft && d.confirmAbsent(ctx, c, zone, run) == nil:
		// A lock read found no zone and the list says that still
		// holds. A zone listed now (created meanwhile, or listed under
		// a read that failed for another reason) is read as usual.
		return nil, true, nil
	default:
		live, err = d.getZone(ctx, c, zone)
	}
	if err == nil {
		return live, false, nil
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return nil, false, fmt.Errorf("observe zone %s at %s%s: %w; nothing is planned for this zone, deletes least of all",
			zone.Name, c.base, keySource(err, zone.Provider.PowerDNS.APIKey), err)
	}
	// A 404 also comes from a wrong server id or URL path; only a zone
	// list from the same server that lacks the zone makes it a zone to
	// create (one extra request, on this path only).
	if err := d.confirmAbsent(ctx, c, zone, run); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// getZone is the one GET of a zone's observation.
func (d *Driver) getZone(ctx context.Context, c *client, zone *model.Zone) (live *pdns.Zone, err error) {
	err = d.retry(ctx, func(ctx context.Context) error {
		var err error
		live, err = c.api.Zones.Get(ctx, zone.Name)
		return err
	})
	return live, err
}

// prefetched is a zone's observation GET started ahead (Prefetch): run
// once, by whoever comes first, the prefetching goroutine or the
// observation.
type prefetched struct {
	once  sync.Once
	get   func()
	c     *client       // its own client: its request is counted where it is taken
	taken chan struct{} // closed when the observation took the answer
	live  *pdns.Zone
	err   error
}

// result waits for the GET (or sends it now) and counts its requests
// as c's, the client of the step that observes the zone. The run's
// Take hands p to one observation only, so result runs once.
func (p *prefetched) result(c *client) (*pdns.Zone, error) {
	p.once.Do(p.get)
	c.count.add(p.c.count)
	close(p.taken)
	return p.live, p.err
}

func prefetchKey(zone *model.Zone) string { return "prefetch " + answerKey(zone) }

// Prefetch implements backends.Prefetcher: the zone's GET, as its
// observation sends it. A zone whose client cannot be built yet is not
// read ahead: a key from Vault is in the run only once its secret step
// has read it (run.Credential), and any other failure the step reports.
func (d *Driver) Prefetch(ctx context.Context, zone *model.Zone, run *backends.Run) func() {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	c, err := d.zoneClient(zone, run)
	if err != nil {
		return nil
	}
	p := &prefetched{c: c, taken: make(chan struct{})}
	p.get = func() { p.live, p.err = d.getZone(ctx, c, zone) }
	runstate.Memos(run).Leave(prefetchKey(zone), p)
	return func() {
		p.once.Do(p.get)
		select {
		case <-p.taken:
		case <-ctx.Done():
		}
	}
}

// leaveCreated hands the zone b's POST created to the observation after
// the apply, when that POST wrote all of it: a zone signed or given its
// SOA fields afterwards has changed since, and is read again.
func leaveCreated(b *batch, zone *model.Zone, run *backends.Run) {
	if b.created != nil && !b.sign && zone.SOA == nil {
		runstate.Memos(run).Leave(answerKey(zone), zoneAnswer{zone: b.created})
	}
}

// leaveNoZone tells the zone's next observation in this run that a read
// of it answered "no such zone".
func leaveNoZone(zone *model.Zone, run *backends.Run) {
	runstate.Memos(run).Leave(answerKey(zone), zoneAnswer{})
}

// confirmAbsent checks with a zone list that the server answering 404
// for zone is a PowerDNS server without that zone, not a wrong server id
// or URL path (which also answers 404, and would plan a zone create).
// One list per server serves every zone of the run that answered 404:
// 200 new zones cost one list, not 200 (a zone created after the list
// answers its own read with 200 and never asks).
func (d *Driver) confirmAbsent(ctx context.Context, c *client, zone *model.Zone, run *backends.Run) error {
	listed, err := d.zoneList(ctx, c, zone, run, "observe")
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		// Not a conflict of any change (nothing is changed yet): the
		// server id, or the url's path, names no server.
		h := hint.Hint{Kind: hint.CheckOperatorFile, Spec: fmt.Sprintf("the url and server id of the zone's provider (providers: %s: powerdns: server, \"localhost\" unless set)", zone.Provider.Name)}
		return hint.Errorf(h, "observe zone %s: the PowerDNS API at %s has no server %q: both the zone and the list of all zones answered 404, so nothing is planned for this zone",
			zone.Name, c.base, zone.Provider.PowerDNS.Server)
	}
	if err != nil {
		return fmt.Errorf("observe zone %s at %s: the zone read answered 404 and the zone list failed too (%w): check the provider's url and server id; nothing is planned for this zone",
			zone.Name, c.base, err)
	}
	if listed[listName(zone.Name)] {
		return fmt.Errorf("observe zone %s at %s: the zone read answered 404 but the zone list has it; nothing is planned for this zone: run site diff again", zone.Name, c.base)
	}
	return nil
}

// zoneList is the names of the zones on zone's server, listed once per
// run and purpose: "observe" lists after the apply lock is held, "lock"
// before it, so that a run that waited for the lock never takes the
// zones it saw absent before the wait for absent still.
func (d *Driver) zoneList(ctx context.Context, c *client, zone *model.Zone, run *backends.Run, purpose string) (map[string]bool, error) {
	listed, err := runstate.Memos(run).Once(zoneListKey(zone, purpose), func() (any, error) {
		var zones []pdns.Zone
		err := d.retry(ctx, func(ctx context.Context) error {
			var err error
			zones, err = c.api.Zones.List(ctx)
			return err
		})
		names := map[string]bool{}
		for _, z := range zones {
			names[listName(pdns.StringValue(z.Name))] = true
		}
		return names, err
	})
	names, _ := listed.(map[string]bool)
	return names, err
}

func zoneListKey(zone *model.Zone, purpose string) string {
	p := zone.Provider.PowerDNS
	return "powerdns zone list " + purpose + " " + p.URL + " " + p.Server
}

// listName is how zoneList keys a zone name.
func listName(zone string) string { return strings.ToLower(strings.TrimSuffix(zone, ".")) }
