package powerdns

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/plan"
)

// journalOf is tenant's journal in zone's metadata on srv.
func journalOf(t *testing.T, srv *pdnstest.Server, zone, tenant string) journal.Store {
	t.Helper()
	zs := zoneStep(srv, tenant, "other.example.test.").Zone
	s, err := testDriver().JournalStore(zs.Provider, zone, tenant, newRun(srv))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testEntry is an entry of tenant made at the i-th millisecond after
// a fixed time, with n record changes of the size an apply writes.
func testEntry(tenant string, i, n int) journal.Entry {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)
	e := journal.Entry{Format: journal.Format, ID: journal.NewID(at), Tenant: tenant, Time: at, Who: "alice@build-3", Command: "site apply"}
	for j := range n {
		name := fmt.Sprintf("host-%05d.office1.example.test.", j)
		e.Changes = append(e.Changes, journal.Change{
			Key: "dns/office1.example.test./" + name + "/A", Step: "dns/office1.example.test.", Phase: plan.PhaseDNS, Action: plan.ActionUpdate,
			Zone: "office1.example.test.", Name: name, Type: "A",
			Before: &journal.RRset{TTL: 300, Values: []string{"192.0.2.1", "192.0.2.2"}, Owner: "site:tenant=" + tenant},
			After:  &journal.RRset{TTL: 300, Values: []string{"198.51.100.1", "198.51.100.2"}, Owner: "site:tenant=" + tenant},
		})
	}
	return e
}

// kinds lists the metadata kinds of zone that start with prefix.
func kinds(t *testing.T, srv *pdnstest.Server, zone, prefix string) []string {
	t.Helper()
	code, body, err := srv.Do(context.Background(), "GET", "/zones/"+zone+"/metadata", nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("list metadata of %s: %d %v", zone, code, err)
	}
	var md []struct{ Kind string }
	if err := json.Unmarshal(body, &md); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range md {
		if strings.HasPrefix(m.Kind, prefix) {
			out = append(out, m.Kind)
		}
	}
	return out
}

// TestJournalStore: a tenant's journal in the journal zone keeps the
// last journal.Keep entries (the oldest kinds removed as the next is
// written), lists them newest first, gets one by id, and keeps other
// tenants' apart.
func TestJournalStore(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "journal.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	office1, shop := journalOf(t, srv, zone, "office1"), journalOf(t, srv, zone, "shop")
	var ids []string
	for i := range journal.Keep + 3 {
		e := testEntry("office1", i, 2)
		if err := office1.Append(ctx, e); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		ids = append(ids, e.ID)
	}
	if err := shop.Append(ctx, testEntry("shop", 0, 1)); err != nil {
		t.Fatal(err)
	}
	es, skipped, err := office1.List(ctx)
	if err != nil || len(skipped) > 0 || len(es) != journal.Keep {
		t.Fatalf("list: %d entries, skipped %v, %v; want %d", len(es), skipped, err, journal.Keep)
	}
	if es[0].ID != ids[len(ids)-1] || es[len(es)-1].ID != ids[3] {
		t.Errorf("list runs %s..%s, want %s..%s (newest first)", es[0].ID, es[len(es)-1].ID, ids[len(ids)-1], ids[3])
	}
	if got := kinds(t, srv, zone, JournalKindPrefix+"OFFICE1"); len(got) != journal.Keep+1 {
		t.Errorf("the zone holds %d kinds of office1's journal, want %d (the index and %d entries): %v", len(got), journal.Keep+1, journal.Keep, got)
	}
	if e, err := office1.Get(ctx, ids[5]); err != nil || e.ID != ids[5] || len(e.Changes) != 2 {
		t.Errorf("get %s: %v %v", ids[5], e, err)
	}
	if _, err := office1.Get(ctx, ids[0]); err == nil || !strings.Contains(err.Error(), "has no entry") {
		t.Errorf("get of a removed entry: %v, want \"has no entry\"", err)
	}
	if es, _, err := shop.List(ctx); err != nil || len(es) != 1 || es[0].Tenant != "shop" {
		t.Errorf("shop's journal: %v %v, want its one entry", es, err)
	}
	missing := journalOf(t, srv, "no-journal.example.test.", "office1")
	if err := missing.Append(ctx, testEntry("office1", 0, 1)); err == nil || !strings.Contains(err.Error(), "locks: powerdns: journal") {
		t.Errorf("append to a zone that does not exist: %v, want it named with what to do", err)
	}
}

// TestJournalRefusesHostileMetadata: anyone with API access can write
// the journal zone's metadata. An index value that is no id names no
// kind site reads or removes; an entry of another tenant, under another
// id, or not JSON is passed over with a note that quotes none of it.
// (One larger than site reads cannot be written through a server's
// default 2 MiB body limit; send bounds the read all the same.)
func TestJournalRefusesHostileMetadata(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "hostile-journal.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	s := journalOf(t, srv, zone, "office1")
	good := testEntry("office1", 0, 1)
	if err := s.Append(ctx, good); err != nil {
		t.Fatal(err)
	}
	put := func(kind string, vals ...string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"metadata": vals})
		if code, out, err := srv.Do(ctx, "PUT", "/zones/"+zone+"/metadata/"+kind, body); err != nil || code != http.StatusOK {
			t.Fatalf("PUT %s: %d %v %s", kind, code, err, out)
		}
	}
	const mark = "::error::pwned"
	other := testEntry("shop", 1, 1)
	renamed := testEntry("office1", 2, 1)
	renamed.Command = mark
	forged := map[string]string{}
	for _, e := range []journal.Entry{other, renamed} {
		b, _ := json.Marshal(e)
		forged[e.ID] = string(b)
	}
	wrongID := testEntry("office1", 4, 0).ID // holds renamed's entry
	forged[wrongID] = forged[renamed.ID]
	delete(forged, renamed.ID)
	notJSON := testEntry("office1", 5, 0).ID
	forged[notJSON] = "{" + mark
	index := []string{good.ID, "../../" + mark, "X-SITE-LOCK-AAAAAAAAAAAAAAAA"}
	for id, v := range forged {
		put(JournalKindPrefix+"OFFICE1-"+id, v)
		index = append(index, id)
	}
	put(JournalKindPrefix+"OFFICE1", index...)
	es, skipped, err := s.List(ctx)
	if err != nil || len(es) != 1 || es[0].ID != good.ID {
		t.Fatalf("list: %v %v, want only %s", es, err, good.ID)
	}
	if len(skipped) != len(forged) {
		t.Errorf("skipped %d, want %d (one per forged entry): %q", len(skipped), len(forged), skipped)
	}
	for _, sk := range skipped {
		if strings.Contains(sk, mark) || strings.Contains(sk, "pwned") || !strings.Contains(sk, "is not site's") {
			t.Errorf("note %q quotes the metadata or does not say it is not site's", sk)
		}
	}
	if _, err := s.Get(ctx, "../../"+mark); err == nil || strings.Contains(err.Error(), "metadata/") {
		t.Errorf("get of a forged id: %v, want it refused as no id", err)
	}
	// An answer larger than site reads (a server with a larger body
	// limit, or what stands in front of it) is read no further, and
	// said so once, not retried.
	big := good
	big.Command = mark + strings.Repeat("x", maxJournalAnswer)
	bigJSON, _ := json.Marshal(big)
	huge, _ := json.Marshal(map[string]any{"kind": "X", "metadata": []string{string(bigJSON)}})
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		return http.StatusOK, string(huge), r.Method == "GET" && strings.HasSuffix(r.URL.Path, good.ID)
	})
	srv.ResetRequests(zone + pdnstest.MetadataSuffix)
	es, skipped, err = s.List(ctx)
	if err != nil || len(es) != 0 || len(skipped) != len(forged)+1 {
		t.Errorf("list with a huge entry: %d entries, %d skipped, %v; want it skipped too", len(es), len(skipped), err)
	}
	if gets := srv.Requests(zone + pdnstest.MetadataSuffix).GET; gets != len(forged)+2 {
		t.Errorf("list with a huge entry made %d GETs, want %d (the index and each entry once)", gets, len(forged)+2)
	}
	for _, sk := range skipped {
		if strings.Contains(sk, mark) {
			t.Errorf("note %q quotes the metadata", sk)
		}
	}
	srv.FailWhen(t, nil)
	// The next append rewrites the index with ids alone.
	if err := s.Append(ctx, testEntry("office1", 9, 1)); err != nil {
		t.Fatal(err)
	}
	code, body, _ := srv.Do(ctx, "GET", "/zones/"+zone+"/metadata/"+JournalKindPrefix+"OFFICE1", nil)
	if code != http.StatusOK || strings.Contains(string(body), mark) {
		t.Errorf("index after an append: %d %s, want ids only", code, body)
	}
}

// TestJournalEntrySizeBound measures what PowerDNS with the sqlite
// backend takes as one metadata value (its API refuses a body over
// webserver-max-bodysize, 2 MiB), and checks that an entry whose body
// would pass maxJournalBody is refused before it is sent, saying so.
func TestJournalEntrySizeBound(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "big-journal.example.test."
	srv.CreateZone(t, zone)
	ctx := context.Background()
	for _, c := range []struct {
		size int
		ok   bool
	}{{maxJournalBody - 64, true}, {2<<20 + 1, false}} {
		body, _ := json.Marshal(map[string]any{"metadata": []string{strings.Repeat("a", c.size-len(`{"metadata":[""]}`))}})
		code, _, err := srv.Do(ctx, "PUT", "/zones/"+zone+"/metadata/X-SITE-SIZE", body)
		if got := err == nil && code == http.StatusOK; got != c.ok {
			t.Errorf("a %d-byte body: status %d %v, accepted %v; want %v", len(body), code, err, got, c.ok)
		}
		t.Logf("a %d-byte metadata PUT: status %d", len(body), code)
	}
	s := journalOf(t, srv, zone, "office1")
	fits := testEntry("office1", 0, 3000)
	if err := s.Append(ctx, fits); err != nil {
		t.Fatalf("an entry of 3,000 changes: %v", err)
	}
	if e, err := s.Get(ctx, fits.ID); err != nil || len(e.Changes) != 3000 {
		t.Fatalf("get of the 3,000-change entry: %v", err)
	}
	b, _ := json.Marshal(fits)
	t.Logf("an entry of 3,000 changes: %d bytes, %d as sent", len(b), bodySize("X", string(b)))
	big := testEntry("office1", 1, 6000)
	srv.ResetRequests(zone + pdnstest.MetadataSuffix)
	err := s.Append(ctx, big)
	if err == nil || !strings.Contains(err.Error(), "site undo cannot undo this apply") {
		t.Errorf("an entry of 6,000 changes: %v, want refused", err)
	}
	if n := srv.Requests(zone + pdnstest.MetadataSuffix).Writes(); n != 0 {
		t.Errorf("the refused entry made %d writes, want none", n)
	}
}

// TestJournalSparesLockReads: a lock read (Holders) lists every kind of
// the lock zone. With 20 entries of 200 changes each in the journal
// zone, it makes the same requests and downloads the same bytes as
// with none; the same entries in the lock zone would add what the test
// logs to every lock read of every tenant.
func TestJournalSparesLockReads(t *testing.T) {
	srv := pdnstest.Shared(t)
	const lockZone, journalZone = "spared-locks.example.test.", "spared-journal.example.test."
	srv.CreateZone(t, lockZone)
	srv.CreateZone(t, journalZone)
	ctx := context.Background()
	zs := zoneStep(srv, "office1", "other.example.test.").Zone
	ls, err := testDriver().TenantLockStore(zs.Provider, lockZone, "office1", newRun(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if other, err := ls.Try(ctx, lock.Holder{ID: "AAAAAAAAAAAAAAAA", Tenant: "office1", Host: "runner-a", Start: now, Expires: now.Add(time.Hour)}); err != nil || other != nil {
		t.Fatalf("lock: %v %v", other, err)
	}
	type cost struct{ GET, AnswerBytes int }
	read := func() cost {
		t.Helper()
		key := lockZone + pdnstest.MetadataSuffix
		srv.ResetRequests(key)
		if _, err := ls.Holders(ctx); err != nil {
			t.Fatal(err)
		}
		c := srv.Requests(key)
		if c.Writes() != 0 {
			t.Fatalf("a lock read wrote: %+v", c)
		}
		return cost{c.GET, srv.AnswerBytes(key)}
	}
	fill := func(zone string) {
		t.Helper()
		s := journalOf(t, srv, zone, "office1")
		for i := range journal.Keep {
			if err := s.Append(ctx, testEntry("office1", i, 200)); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := read()
	fill(journalZone)
	after := read()
	if after.GET != before.GET || after.AnswerBytes != before.AnswerBytes {
		t.Errorf("a lock read with the journal written: %d requests, %d bytes; without: %d, %d", after.GET, after.AnswerBytes, before.GET, before.AnswerBytes)
	}
	t.Logf("a lock read: %d request(s), %d bytes, with 20 entries of 200 changes in the journal zone or none", after.GET, after.AnswerBytes)
	// The same entries in the lock zone, as a journal there would be.
	fill(lockZone)
	inLockZone := read()
	t.Logf("with them in the lock zone: %d request(s), %d bytes", inLockZone.GET, inLockZone.AnswerBytes)
	if inLockZone.AnswerBytes < before.AnswerBytes+20*200*100 {
		t.Errorf("the entries in the lock zone added %d bytes to a lock read; the measure is wrong", inLockZone.AnswerBytes-before.AnswerBytes)
	}
}
