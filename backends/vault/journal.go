package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// JournalPrefix is where a tenant's apply journal lives in a store's KV
// v2 mount: the secret JournalPrefix + tenant, one version per entry.
// The secret's max_versions is journal.Keep, so Vault itself drops the
// oldest entry when an apply writes the next.
const JournalPrefix = "site-journal/"

// JournalStore is a tenant's apply journal in a KV v2 secret
// (journal.Store), in the store that holds the tenant's apply lock.
// What a version holds is read as anything a client with write access
// may have put there: at most journal.MaxEntry bytes, decoded by
// journal.Decode, never quoted.
type JournalStore struct {
	lock   *LockStore // the client, the address that answered, the mount
	tenant string
}

// JournalStore returns tenant's journal in store, at the address that
// answers for its apply lock (see LockStore).
func (d *Driver) JournalStore(ctx context.Context, store *model.Vault, tenant string, run *backends.Run) (journal.Store, error) {
	l, err := d.LockStore(ctx, store, tenant, run, nil)
	if err != nil {
		return nil, err
	}
	return &JournalStore{lock: l.(*LockStore), tenant: tenant}, nil
}

func (s *JournalStore) path() string { return JournalPrefix + s.tenant }

func (s *JournalStore) kv() *api.KVv2 { return s.lock.c.KVv2(s.lock.r.mount()) }

// Where implements journal.Store.
func (s *JournalStore) Where() string {
	return fmt.Sprintf("vault %s at %s (KV v2 %s/%s)", s.lock.r.sec.Store.Name, s.lock.addr, s.lock.r.mount(), s.path())
}

// wrap names the store in an error, without any token.
func (s *JournalStore) wrap(doing string, err error) error {
	reason, _ := describe(err, s.lock.r.timeout)
	var re *api.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusForbidden {
		h := hint.Hint{Kind: hint.GrantToken, Setting: s.lock.r.tokenSource(),
			Spec: fmt.Sprintf("read, create and update on %s/data/%s* and %s/metadata/%s*", s.lock.r.mount(), JournalPrefix, s.lock.r.mount(), JournalPrefix)}
		return hint.Errorf(h, "%s %s: %s", doing, s.Where(), s.lock.r.scrub(reason))
	}
	return fmt.Errorf("%s %s: %s", doing, s.Where(), s.lock.r.scrub(reason))
}

// Append implements journal.Store: the entry is the secret's next
// version, and max_versions keeps the last journal.Keep.
func (s *JournalStore) Append(ctx context.Context, e journal.Entry) error {
	b, err := jsonEntry(e)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.lock.r.timeout)
	defer cancel()
	if err := s.kv().PutMetadata(ctx, s.path(), api.KVMetadataPutInput{MaxVersions: journal.Keep}); err != nil {
		return s.wrap("writing the journal's max_versions in", err)
	}
	if _, err := s.kv().Put(ctx, s.path(), map[string]any{"entry": string(b)}); err != nil {
		return s.wrap("writing a journal entry to", err)
	}
	return nil
}

// List implements journal.Store: the newest journal.Keep versions,
// newest first.
func (s *JournalStore) List(ctx context.Context) ([]journal.Entry, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.lock.r.timeout)
	defer cancel()
	meta, err := s.kv().GetMetadata(ctx, s.path())
	if errors.Is(err, api.ErrSecretNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, s.wrap("reading the journal in", err)
	}
	var out []journal.Entry
	var skipped []string
	for v := meta.CurrentVersion; v > 0 && v > meta.CurrentVersion-journal.Keep; v-- {
		kv, err := s.kv().GetVersion(ctx, s.path(), v)
		if errors.Is(err, api.ErrSecretNotFound) || err == nil && kv.Data == nil {
			continue // deleted or destroyed
		}
		if err != nil {
			return nil, nil, s.wrap("reading the journal in", err)
		}
		e, err := decodeVersion(kv.Data, s.tenant)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("journal entry version %d of %s is not site's (%v): left alone", v, s.Where(), err))
			continue
		}
		out = append(out, *e)
	}
	return out, skipped, nil
}

// Get implements journal.Store.
func (s *JournalStore) Get(ctx context.Context, id string) (*journal.Entry, error) {
	if !journal.ValidID(id) {
		return nil, fmt.Errorf("%q is not a journal entry id: site history lists them", id)
	}
	es, _, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	for i := range es {
		if es[i].ID == id {
			return &es[i], nil
		}
	}
	return nil, fmt.Errorf("tenant %s's journal (%s) has no entry %s: site history lists those it keeps (the last %d)", s.tenant, s.Where(), id, journal.Keep)
}

// decodeVersion is the entry a version's data holds.
func decodeVersion(data map[string]any, tenant string) (*journal.Entry, error) {
	text, ok := data["entry"].(string)
	if !ok {
		return nil, errors.New("no entry in it")
	}
	return journal.Decode([]byte(text), tenant)
}

// maxVaultEntry is the most an entry may hold in a Vault: a request's
// JSON string value is at most 1 MiB there (max_request_json_strlen),
// about 3,000 changes with their before-images.
const maxVaultEntry = 1<<20 - 1024

// jsonEntry is e as a version holds it, refused over maxVaultEntry.
func jsonEntry(e journal.Entry) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if len(b) > maxVaultEntry {
		return nil, fmt.Errorf("the journal entry of this apply is %d bytes, over the %d an entry may hold in a Vault, so it was not written: site undo cannot undo this apply", len(b), maxVaultEntry)
	}
	return b, nil
}
