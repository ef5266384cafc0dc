package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// LockKindPrefix starts the zone metadata kind of every site apply lock
// entry; each run writes its own kind, LockKindPrefix + its Holder.ID.
// PowerDNS lets the API write custom kinds that start with "X-".
const LockKindPrefix = "X-SITE-LOCK-"

// ErrNoZone is what a LockStore's Try says when the zone does not exist
// yet, so there is no metadata to hold: the caller locks elsewhere.
var ErrNoZone = errors.New("the zone does not exist yet")

// LockStore is a site apply lock in zone's metadata (lock.Store).
//
// PowerDNS metadata has no compare-and-swap, so each run writes only a
// kind of its own (no run ever rewrites another's entry) and decides from
// what it reads back: it writes a claim, holds only if no other live
// entry is held and no other claim is older by ID, then writes held and
// reads once more, stepping back if another entry is held by then. Of two
// runs, the later reader always sees the earlier one's held entry, so
// both may step back (they then try again) but never both hold. A zone
// after the tenant's first store skips the claim (TryHeld): the same
// argument holds for a run that writes held and reads once.
type LockStore struct {
	d    *Driver
	zone *model.Zone
	c    *client
	now  func() time.Time
	// run is where a read that finds no zone says so, for the zone's
	// observation (see observeZone).
	run *backends.Run
	// tenant, when set, makes the store the lock of that tenant alone in
	// the operator's lock zone (site.cue locks: powerdns): entries of
	// other tenants' runs in the zone are not this lock's.
	tenant string
}

// TenantLockStore returns tenant's lock store in the metadata of zone,
// the operator's lock zone on a server of provider (site.cue locks:
// powerdns): one entry per run of the tenant, whichever of its zones the
// run touches, so taking, renewing and releasing the lock cost the same
// for a tenant of one zone or of a thousand.
func (d *Driver) TenantLockStore(provider model.Provider, zone, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error) {
	z := &model.Zone{Name: zone, Provider: provider}
	c, err := d.zoneClient(z, run)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &LockStore{d: d, zone: z, c: c, now: now, run: run, tenant: tenant}, nil
}

// LockStore returns the lock store of zone on its PowerDNS server.
func (d *Driver) LockStore(zone *model.Zone, run *backends.Run, now func() time.Time) (lock.Store, error) {
	c, err := d.newClient(graph.ZoneStep(zone), run)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &LockStore{d: d, zone: zone, c: c, now: now, run: run}, nil
}

// Where implements lock.Store.
func (s *LockStore) Where() string {
	if s.tenant != "" {
		return fmt.Sprintf("PowerDNS zone %s at %s (metadata %s*, tenant %s)", s.zone.Name, s.c.base, LockKindPrefix, s.tenant)
	}
	return fmt.Sprintf("PowerDNS zone %s at %s (metadata %s*)", s.zone.Name, s.c.base, LockKindPrefix)
}

// Try implements lock.Store.
func (s *LockStore) Try(ctx context.Context, h lock.Holder) (*lock.Holder, error) {
	h.State = lock.Claim
	if err := s.put(ctx, h); err != nil {
		return nil, err
	}
	for _, state := range []string{lock.Claim, lock.Held} {
		others, err := s.others(ctx, h.ID)
		if err != nil {
			return nil, errors.Join(err, s.Release(ctx, h))
		}
		if o := blocker(others, h, state); o != nil {
			if state == lock.Held {
				// Held only since this run's first read: a run racing
				// this one, which steps back too. Say so (a claim), and
				// lock.Acquire tries again.
				o.State = lock.Claim
			}
			return o, s.Release(ctx, h)
		}
		if state == lock.Claim {
			h.State = lock.Held
			if err := s.put(ctx, h); err != nil {
				return nil, errors.Join(err, s.Release(ctx, h))
			}
		}
	}
	return nil, nil
}

// TryHeld implements lock.HeldTaker: h's entry is written as held at
// once and read back; another held entry by then wins (h's is removed),
// and that holder is reported as it is.
func (s *LockStore) TryHeld(ctx context.Context, h lock.Holder) (*lock.Holder, error) {
	h.State = lock.Held
	if err := s.put(ctx, h); err != nil {
		return nil, err
	}
	others, err := s.others(ctx, h.ID)
	if err != nil {
		return nil, errors.Join(err, s.Release(ctx, h))
	}
	if o := blocker(others, h, lock.Held); o != nil {
		return o, s.Release(ctx, h)
	}
	return nil, nil
}

// blocker is the entry that keeps h from holding: any held one, and at
// the claim stage also a claim with a smaller ID.
func blocker(others []lock.Holder, h lock.Holder, stage string) *lock.Holder {
	for i, o := range others {
		if o.State == lock.Held || (stage == lock.Claim && o.ID < h.ID) {
			return &others[i]
		}
	}
	return nil
}

// others lists the live entries of other runs, removing expired ones (a
// dead holder's lease is taken over).
func (s *LockStore) others(ctx context.Context, self string) ([]lock.Holder, error) {
	all, err := s.Holders(ctx)
	if err != nil {
		return nil, err
	}
	var out []lock.Holder
	for _, o := range all {
		switch {
		case o.ID == self:
		case !o.Live(s.now()):
			if err := s.Break(ctx, o); err != nil {
				return nil, err
			}
			lock.ReportTakeover(ctx, o)
		default:
			out = append(out, o)
		}
	}
	return out, nil
}

// Renew implements lock.Store.
func (s *LockStore) Renew(ctx context.Context, h lock.Holder) error {
	h.State = lock.Held
	return s.put(ctx, h)
}

// Release implements lock.Store.
func (s *LockStore) Release(ctx context.Context, h lock.Holder) error { return s.Break(ctx, h) }

// Break implements lock.Store: remove h's kind.
func (s *LockStore) Break(ctx context.Context, h lock.Holder) error {
	err := s.d.retry(ctx, func(ctx context.Context) error {
		return s.c.api.Metadata.Delete(ctx, s.zone.Name, pdns.MetadataKind(LockKindPrefix+h.ID))
	})
	if err != nil {
		return fmt.Errorf("remove lock entry %s%s of zone %s at %s: %w", LockKindPrefix, h.ID, s.zone.Name, s.c.base, err)
	}
	return nil
}

// Holders implements lock.Store: every lock entry of the zone, oldest
// start first.
func (s *LockStore) Holders(ctx context.Context) ([]lock.Holder, error) {
	if s.tenant == "" && s.unlisted() {
		leaveNoZone(s.zone, s.run)
		return nil, s.noZone()
	}
	var md []pdns.Metadata
	err := s.d.retry(ctx, func(ctx context.Context) error {
		var err error
		md, err = s.c.api.Metadata.List(ctx, s.zone.Name)
		return err
	})
	if err != nil {
		err = s.wrap("read the lock entries of", err)
		if s.tenant != "" && errors.Is(err, ErrNoZone) {
			return nil, fmt.Errorf("%w: create it, or name an existing zone in site.cue (locks: powerdns: zone), which holds the apply locks", err)
		}
		if errors.Is(err, ErrNoZone) {
			leaveNoZone(s.zone, s.run)
			// The server lists its zones once, so that the rest of a
			// tenant's new zones need no read each (see unlisted).
			_, _ = s.d.zoneList(ctx, s.c, s.zone, s.run, "lock")
		}
		return nil, err
	}
	var out []lock.Holder
	for _, m := range md {
		kind := string(derefKind(m.Kind))
		if !strings.HasPrefix(strings.ToUpper(kind), LockKindPrefix) || len(m.Metadata) == 0 {
			continue
		}
		// An entry is read as anything an API client may have written:
		// its id must be one site makes, and the kind its own, since
		// Break deletes the kind made of the id; no error quotes it.
		var h lock.Holder
		if err := json.Unmarshal([]byte(m.Metadata[0]), &h); err != nil || !lock.ValidID(h.ID) || !strings.EqualFold(kind, LockKindPrefix+h.ID) {
			return nil, fmt.Errorf("zone %s at %s: metadata %s is not a site lock entry: remove it if no site apply runs", s.zone.Name, s.c.base, visible.Short(kind))
		}
		if s.tenant != "" && h.Tenant != s.tenant {
			continue // another tenant's lock, in the same zone
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Start.Before(out[j].Start) || out[i].Start.Equal(out[j].Start) && out[i].ID < out[j].ID
	})
	return out, nil
}

// unlisted reports that the zone is not in the zone list its server
// gave this run's lock reads: a list that one of them asked for when its
// zone was missing. A tenant's 200 new zones then cost eight lock reads
// and one list, not 200 reads, and a tenant whose zones all exist never
// lists (the observation lists again, after the lock is held, for any
// zone it finds missing).
func (s *LockStore) unlisted() bool {
	v, err, ok := runstate.Memos(s.run).Known(zoneListKey(s.zone, "lock"))
	names, _ := v.(map[string]bool)
	return ok && err == nil && !names[listName(s.zone.Name)]
}

func (s *LockStore) put(ctx context.Context, h lock.Holder) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	err = s.d.retry(ctx, func(ctx context.Context) error {
		_, err := s.c.api.Metadata.Set(ctx, s.zone.Name, pdns.MetadataKind(LockKindPrefix+h.ID), []string{string(b)})
		return err
	})
	if err != nil {
		return s.wrap("write a lock entry to", err)
	}
	return nil
}

// wrap says which zone a metadata call failed on; a missing zone is
// ErrNoZone.
func (s *LockStore) wrap(doing string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusUnprocessableEntity && strings.Contains(strings.Join(ae.Messages, " "), "Could not find domain")) {
		return s.noZone()
	}
	return fmt.Errorf("%s zone %s at %s: %w", doing, s.zone.Name, s.c.base, err)
}

// noZone says that the zone does not exist (ErrNoZone).
func (s *LockStore) noZone() error {
	return fmt.Errorf("zone %s at %s: %w", s.zone.Name, s.c.base, ErrNoZone)
}

func derefKind(k *pdns.MetadataKind) pdns.MetadataKind {
	if k == nil {
		return ""
	}
	return *k
}
