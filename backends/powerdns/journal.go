package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/compiler/model"
)

// JournalKindPrefix starts the metadata kinds of the tenants' journals
// in the operator's journal zone (site.cue locks: powerdns: journal):
// JournalKindPrefix + TENANT is a tenant's index, whose values are the
// ids of the entries it keeps, and JournalKindPrefix + TENANT + "-" + ID
// holds one entry, its JSON as the kind's one value.
//
// The journal never lives in the lock zone: every lock read lists all
// of that zone's metadata (each run's lock has a kind of its own), so
// 20 entries of 200 changes there would add 1.8 MB to every lock
// read of every tenant (measured: TestJournalSparesLockReads). Here
// each kind is read by its exact name: listing a tenant's journal reads
// its index and its entries, nothing of other tenants'.
const JournalKindPrefix = "X-SITE-JOURNAL-"

// maxJournalBody is the most bytes a PUT of one entry may carry: the
// PowerDNS API refuses a request body over webserver-max-bodysize, 2 MiB
// by default (the sqlite backend itself took a 2 MiB value, measured:
// TestJournalEntrySizeBound). An entry's JSON grows by its escaping in
// the body; an apply of more than about 4,500 changes is not journalled,
// and says so.
const maxJournalBody = 2<<20 - 4096

// maxJournalAnswer bounds what is read of one journal kind: an entry's
// value escaped, with room; more is not site's.
const maxJournalAnswer = 2 * maxJournalBody

// maxIndex bounds the ids an index may hold: site keeps journal.Keep.
const maxIndex = 1024

// JournalStore is a tenant's journal in the metadata of the operator's
// journal zone (journal.Store). What it reads is read as anything an
// API client may have written: ids must be ones site makes, an entry at
// most maxJournalAnswer bytes, decoded by journal.Decode (its id the
// one its kind names, its tenant this one), and nothing read is quoted.
type JournalStore struct {
	d      *Driver
	c      *client
	zone   string // canonical
	tenant string
}

// JournalStore returns tenant's journal in the metadata of zone, on the
// server of provider that holds the apply locks.
func (d *Driver) JournalStore(provider model.Provider, zone, tenant string, run *backends.Run) (journal.Store, error) {
	c, err := d.zoneClient(&model.Zone{Name: zone, Provider: provider}, run)
	if err != nil {
		return nil, err
	}
	return &JournalStore{d: d, c: c, zone: zone, tenant: tenant}, nil
}

func (s *JournalStore) index() string { return JournalKindPrefix + strings.ToUpper(s.tenant) }

func (s *JournalStore) entryKind(id string) string { return s.index() + "-" + id }

// Where implements journal.Store.
func (s *JournalStore) Where() string {
	return fmt.Sprintf("PowerDNS zone %s at %s (metadata %s*)", s.zone, s.c.base, s.index())
}

// Append implements journal.Store: the entry's kind is written, then
// the index with the newest journal.Keep ids, then the kinds of the ids
// it no longer holds are removed.
func (s *JournalStore) Append(ctx context.Context, e journal.Entry) error {
	if !journal.ValidID(e.ID) || e.Tenant != s.tenant {
		return fmt.Errorf("journal %s: entry %q of tenant %q is not one site makes", s.Where(), e.ID, e.Tenant)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if n := bodySize(s.entryKind(e.ID), string(b)); n > maxJournalBody {
		return fmt.Errorf("the journal entry of this apply is %d bytes (%d as PowerDNS is sent it), over the %d a request to PowerDNS may carry, so it was not written to %s: site undo cannot undo this apply", len(b), n, maxJournalBody, s.Where())
	}
	ids, err := s.ids(ctx)
	if err != nil {
		return err
	}
	if err := s.put(ctx, s.entryKind(e.ID), []string{string(b)}); err != nil {
		return err
	}
	ids = append(ids, e.ID)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var gone []string
	if len(ids) > journal.Keep {
		gone, ids = ids[:len(ids)-journal.Keep], ids[len(ids)-journal.Keep:]
	}
	if err := s.put(ctx, s.index(), ids); err != nil {
		return errors.Join(err, s.remove(ctx, e.ID))
	}
	var errs []error
	for _, id := range gone {
		errs = append(errs, s.remove(ctx, id))
	}
	return errors.Join(errs...)
}

// bodySize is the size of the body that sets kind to value.
func bodySize(kind, value string) int {
	b, _ := json.Marshal(pdns.Metadata{Kind: (*pdns.MetadataKind)(&kind), Metadata: []string{value}})
	return len(b)
}

// List implements journal.Store.
func (s *JournalStore) List(ctx context.Context) ([]journal.Entry, []string, error) {
	ids, err := s.ids(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(ids) > journal.Keep {
		ids = ids[len(ids)-journal.Keep:]
	}
	var out []journal.Entry
	var skipped []string
	for i := len(ids) - 1; i >= 0; i-- {
		e, err := s.read(ctx, ids[i])
		switch {
		case errors.Is(err, errNoEntry):
			skipped = append(skipped, fmt.Sprintf("journal entry %s of %s is gone: left out", ids[i], s.Where()))
		case err != nil && errors.Is(err, errNotSite):
			skipped = append(skipped, err.Error())
		case err != nil:
			return nil, nil, err
		default:
			out = append(out, *e)
		}
	}
	return out, skipped, nil
}

// Get implements journal.Store.
func (s *JournalStore) Get(ctx context.Context, id string) (*journal.Entry, error) {
	if !journal.ValidID(id) {
		return nil, fmt.Errorf("%q is not a journal entry id: site history lists them (like 20261207T182526.042Z-3F9A1C0B)", id)
	}
	e, err := s.read(ctx, id)
	if errors.Is(err, errNoEntry) {
		return nil, fmt.Errorf("tenant %s's journal (%s) has no entry %s: site history lists those it keeps (the last %d)", s.tenant, s.Where(), id, journal.Keep)
	}
	return e, err
}

var (
	errNoEntry = errors.New("no such entry")
	errNotSite = errors.New("not site's")
)

// ids are the entry ids the index holds, oldest first. A value that is
// no id is passed over (it names no kind site would remove or read).
func (s *JournalStore) ids(ctx context.Context) ([]string, error) {
	vals, err := s.get(ctx, s.index())
	if errors.Is(err, errAnswerTooLarge) || err == nil && len(vals) > maxIndex {
		return nil, fmt.Errorf("journal index %s is larger than site makes it (%d ids): it is not site's alone, so it is not read; remove it", s.Where(), journal.Keep)
	}
	if err != nil {
		return nil, err
	}
	ids := slices.DeleteFunc(vals, func(v string) bool { return !journal.ValidID(v) })
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// read reads the entry id (a ValidID). Its errors never quote the
// metadata's bytes.
func (s *JournalStore) read(ctx context.Context, id string) (*journal.Entry, error) {
	vals, err := s.get(ctx, s.entryKind(id))
	notSite := func(why error) error {
		return fmt.Errorf("journal entry %s of %s is %w (%v): left alone", id, s.Where(), errNotSite, why)
	}
	switch {
	case errors.Is(err, errAnswerTooLarge):
		return nil, notSite(fmt.Errorf("larger than %d bytes", maxJournalAnswer))
	case err != nil:
		return nil, err
	case len(vals) == 0:
		return nil, errNoEntry
	case len(vals) > 1:
		return nil, notSite(errors.New("more than one value"))
	}
	e, err := journal.Decode([]byte(vals[0]), s.tenant)
	if err == nil && e.ID != id {
		err = errors.New("its id is not its kind's")
	}
	if err != nil {
		return nil, notSite(err)
	}
	return e, nil
}

// get reads the values of kind, none when the kind is absent; at most
// maxJournalAnswer bytes of the answer are read.
func (s *JournalStore) get(ctx context.Context, kind string) ([]string, error) {
	var md pdns.Metadata
	path := "zones/" + url.PathEscape(s.zone) + "/metadata/" + url.PathEscape(kind)
	tooLarge := false
	err := s.d.retry(ctx, func(ctx context.Context) error {
		md = pdns.Metadata{}
		err := s.c.raw.send(ctx, "GET", path, nil, &md, maxJournalAnswer)
		if errors.Is(err, errAnswerTooLarge) {
			// Not retried: the same answer comes again.
			tooLarge = true
			return nil
		}
		return err
	})
	if tooLarge {
		return nil, errAnswerTooLarge
	}
	if err != nil {
		return nil, s.wrap("read the journal in", err)
	}
	return md.Metadata, nil
}

func (s *JournalStore) put(ctx context.Context, kind string, vals []string) error {
	err := s.d.retry(ctx, func(ctx context.Context) error {
		_, err := s.c.api.Metadata.Set(ctx, s.zone, pdns.MetadataKind(kind), vals)
		return err
	})
	if err != nil {
		return s.wrap("write the journal to", err)
	}
	return nil
}

// remove deletes the kind of entry id.
func (s *JournalStore) remove(ctx context.Context, id string) error {
	err := s.d.retry(ctx, func(ctx context.Context) error {
		return s.c.api.Metadata.Delete(ctx, s.zone, pdns.MetadataKind(s.entryKind(id)))
	})
	if err != nil {
		return s.wrap("remove an old journal entry from", err)
	}
	return nil
}

// wrap says which zone a journal call failed on, and what to do when
// the zone does not exist.
func (s *JournalStore) wrap(doing string, err error) error {
	ls := LockStore{zone: &model.Zone{Name: s.zone}, c: s.c}
	err = ls.wrap(doing, err)
	if errors.Is(err, ErrNoZone) {
		return fmt.Errorf("%w: create it, or name an existing zone in site.cue (locks: powerdns: journal), which holds the journals", err)
	}
	return err
}
