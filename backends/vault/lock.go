package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// LockPrefix is where a tenant's apply lock lives in a store's KV v2
// mount: the secret LockPrefix + tenant.
const LockPrefix = "site-locks/"

// releasedKey marks a lock secret's version as released: it names no
// holder. Releasing writes such a version (with check-and-set) rather
// than deleting the secret, so a run can never remove a hold that
// another run has taken over in the meantime.
const releasedKey = "released_by"

// LockStore is a site apply lock in a KV v2 secret (lock.Store). Every
// write carries options.cas: 0 to create the secret only if it does not
// exist, the version read to replace what was read and nothing newer.
// Of two runs writing over the same version, the store accepts one and
// answers the other 400 "check-and-set parameter did not match the
// current version", so at most one holds.
type LockStore struct {
	r      *reader
	c      *api.Client
	addr   string
	tenant string
	now    func() time.Time
}

// errCAS is a write the store refused because another write came first.
var errCAS = errors.New("check-and-set: the lock changed since it was read")

// LockStore returns tenant's lock store in store, at the first of its
// addresses (the secret reader's walk: site.cue's or SITE_VAULT_ADDRS',
// then VAULT_ADDR) that answers a read of the lock. It fails when none
// does, or when one fails TLS (final, as for secrets); the caller then
// keeps the lock elsewhere. The store's token (or AppRole login) must
// be in the environment: a token kept in another Vault is not read yet
// when the lock is taken.
func (d *Driver) LockStore(ctx context.Context, store *model.Vault, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error) {
	if now == nil {
		now = time.Now
	}
	sec := &graph.Secret{Store: store, Ref: model.VaultRef{Vault: store.Name, Path: LockPrefix + tenant, Key: "id"}}
	r := &reader{timeout: d.timeout(), run: run, sec: sec, driver: d}
	addrs := r.addrs()
	if len(addrs) == 0 {
		return nil, fmt.Errorf("vault %s has no address and VAULT_ADDR is unset", store.Name)
	}
	if err := r.prepare(addrs); err != nil {
		return nil, err
	}
	// The run's memory of the store is shared with its secret steps: an
	// address that did not answer here is not dialled again by them.
	mem := d.memory(storeKey(store.Name, addrs))
	if err := mem.lock(ctx); err != nil {
		return nil, err
	}
	defer mem.unlock()
	r.mem = mem
	var tried []attempt
	order := mem.order(addrs)
	for i, addr := range order {
		if att, ok := mem.failed[addr]; ok {
			tried = append(tried, att)
			continue
		}
		s, att, err := r.lockAt(ctx, addr, tenant, now)
		if s != nil {
			mem.answered = addr
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		if !att.answered && ctx.Err() == nil {
			mem.remember(att, fmt.Sprintf("reading tenant %s's apply lock entry: GET %s/data/%s", tenant, r.mount(), r.sec.Ref.Path))
		}
		tried = append(tried, att)
		if ctx.Err() == nil {
			r.movingOn(att, order[i+1:])
		}
	}
	answered, forbidden := false, false
	for _, a := range tried {
		answered = answered || a.answered
		forbidden = forbidden || a.status == http.StatusForbidden
	}
	if !answered {
		return nil, fmt.Errorf("no address of vault %s answered for the apply lock:\n%s", store.Name, list(inOrder(tried, addrs)))
	}
	msg := fmt.Sprintf("vault %s refused the apply lock:\n%s", store.Name, list(inOrder(tried, addrs)))
	if forbidden {
		msg += fmt.Sprintf("\n  the token in %s needs read, create and update on %s/data/%s* for the lock to be kept in this store",
			r.tokenSource(), r.mount(), LockPrefix)
	}
	return nil, errors.New(msg)
}

// lockAt makes the store's lock at addr, if addr answers a read of it.
func (r *reader) lockAt(ctx context.Context, addr, tenant string, now func() time.Time) (*LockStore, attempt, error) {
	att := attempt{addr: addr}
	c, err := r.client(addr)
	if err != nil {
		att.reason = "unusable address: " + err.Error()
		return nil, att, nil
	}
	tctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.login(tctx, c); err != nil {
		final := r.failed(&att, err) // before att is returned: it fills att in
		return nil, att, final
	}
	s := &LockStore{r: r, c: c, addr: addr, tenant: tenant, now: now}
	if _, _, err := s.get(tctx); err != nil {
		final := r.failed(&att, err)
		return nil, att, final
	}
	return s, att, nil
}

func (s *LockStore) path() string { return s.r.sec.Ref.Path }

// Where implements lock.Store.
func (s *LockStore) Where() string {
	return fmt.Sprintf("vault %s at %s (KV v2 %s/%s)", s.r.sec.Store.Name, s.addr, s.r.mount(), s.path())
}

// get reads the lock: its holder (nil when none: no secret, a released
// or deleted latest version) and the version to write over (0: none).
func (s *LockStore) get(ctx context.Context) (*lock.Holder, int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.r.timeout)
	defer cancel()
	kv, err := s.c.KVv2(s.r.mount()).Get(ctx, s.path())
	if errors.Is(err, api.ErrSecretNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	v := 0
	if kv.VersionMetadata != nil {
		v = kv.VersionMetadata.Version
	}
	if kv.Data == nil || kv.Data[releasedKey] != nil {
		return nil, v, nil
	}
	b, err := json.Marshal(kv.Data)
	if err != nil {
		return nil, 0, err
	}
	var h lock.Holder
	// Read as anything a client with write access may have put there:
	// the id must be one site makes, and no error quotes the secret.
	if err := json.Unmarshal(b, &h); err != nil || !lock.ValidID(h.ID) {
		return nil, 0, fmt.Errorf("%s is not a site lock: if no site apply runs, delete it (vault kv metadata delete -mount=%s %s)",
			s.Where(), s.r.mount(), s.path())
	}
	return &h, v, nil
}

// put writes data over version cas (0: only if the secret is absent).
func (s *LockStore) put(ctx context.Context, data map[string]any, cas int) error {
	ctx, cancel := context.WithTimeout(ctx, s.r.timeout)
	defer cancel()
	_, err := s.c.KVv2(s.r.mount()).Put(ctx, s.path(), data, api.WithCheckAndSet(cas))
	var re *api.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusBadRequest && strings.Contains(strings.Join(re.Errors, " "), "check-and-set") {
		return errCAS
	}
	return err
}

func holderData(h lock.Holder) (map[string]any, error) {
	h.State = lock.Held
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// wrap names the store in an error, without any token.
func (s *LockStore) wrap(doing string, err error) error {
	reason, _ := describe(err, s.r.timeout)
	var re *api.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusForbidden {
		h := hint.Hint{Kind: hint.GrantToken, Setting: s.r.tokenSource(), Spec: fmt.Sprintf("read, create and update on %s/data/%s*", s.r.mount(), LockPrefix)}
		return hint.Errorf(h, "%s %s: %s", doing, s.Where(), s.r.scrub(reason))
	}
	return fmt.Errorf("%s %s: %s", doing, s.Where(), s.r.scrub(reason))
}

// Try implements lock.Store: write h over a free or expired lock with
// check-and-set; when another run's write came first, read again.
func (s *LockStore) Try(ctx context.Context, h lock.Holder) (*lock.Holder, error) {
	data, err := holderData(h)
	if err != nil {
		return nil, err
	}
	for range 3 {
		cur, v, err := s.get(ctx)
		if err != nil {
			return nil, s.wrap("read the apply lock in", err)
		}
		if cur != nil && cur.ID != h.ID && cur.Live(s.now()) {
			return cur, nil
		}
		err = s.put(ctx, data, v)
		if err == nil {
			if cur != nil && cur.ID != h.ID {
				lock.ReportTakeover(ctx, *cur) // written over a dead holder's expired lease
			}
			return nil, nil
		}
		if !errors.Is(err, errCAS) {
			return nil, s.wrap("write the apply lock in", err)
		}
	}
	return nil, fmt.Errorf("%s: other runs keep writing it; run again", s.Where())
}

// Renew implements lock.Store: write h's new lease over its own version,
// unless another run has taken the lock over.
func (s *LockStore) Renew(ctx context.Context, h lock.Holder) error {
	cur, v, err := s.get(ctx)
	if err != nil {
		return s.wrap("read the apply lock in", err)
	}
	if cur == nil || cur.ID != h.ID {
		if cur == nil {
			return errors.New("the lock was released or deleted by another run or an operator")
		}
		return fmt.Errorf("the lock was taken over by %s after this run's lease ran out", cur)
	}
	data, err := holderData(h)
	if err != nil {
		return err
	}
	if err := s.put(ctx, data, v); err != nil {
		if errors.Is(err, errCAS) {
			return errors.New("the lock was written by another run while this run renewed it")
		}
		return s.wrap("renew the apply lock in", err)
	}
	return nil
}

// Release implements lock.Store: write a released version over h's own
// one; a lock another run holds now is left alone.
func (s *LockStore) Release(ctx context.Context, h lock.Holder) error {
	cur, v, err := s.get(ctx)
	if err != nil {
		return s.wrap("read the apply lock in", err)
	}
	if cur == nil || cur.ID != h.ID {
		return nil // released, or taken over after our lease ran out
	}
	err = s.put(ctx, map[string]any{releasedKey: h.ID, "released": s.now().UTC().Format(time.RFC3339)}, v)
	if err != nil && !errors.Is(err, errCAS) { // errCAS: another run wrote it, so it is not ours
		return s.wrap("release the apply lock in", err)
	}
	return nil
}

// Holders implements lock.Store.
func (s *LockStore) Holders(ctx context.Context) ([]lock.Holder, error) {
	cur, _, err := s.get(ctx)
	if err != nil {
		return nil, s.wrap("read the apply lock in", err)
	}
	if cur == nil {
		return nil, nil
	}
	return []lock.Holder{*cur}, nil
}

// Break implements lock.Store (site unlock): release h's hold, which is
// the one the operator was shown.
func (s *LockStore) Break(ctx context.Context, h lock.Holder) error { return s.Release(ctx, h) }
