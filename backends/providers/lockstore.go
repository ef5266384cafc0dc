package providers

import (
	"context"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// The rule of a tenant's apply lock (help topic "locking"): one entry
// per tenant, in the one store site.cue names (locks: a directory, a
// vault or a PowerDNS zone), else in a directory of the user's state
// directory. Nothing a tenant's spec declares moves it, and nothing is
// ever read or written under the specs' directories, which a pull
// request writes.

// zoneLocker is the PowerDNS backend, which can hold every tenant's
// apply lock in the metadata of one zone (site.cue locks: powerdns).
type zoneLocker interface {
	TenantLockStore(provider model.Provider, zone, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error)
}

// vaultLocker is the secrets backend when it can hold an apply lock in a
// KV v2 secret of one of the operator's stores.
type vaultLocker interface {
	LockStore(ctx context.Context, store *model.Vault, tenant string, run *backends.Run, now func() time.Time) (lock.Store, error)
}

// LockStore is the store of tenant t's apply lock, as site.cue alone
// says (lock.For), kept by this set's backends; specDirs are what a
// lock directory must stay out of.
func (s *Set) LockStore(ctx context.Context, t *model.Tenant, run *backends.Run, specDirs []string) (lock.Store, error) {
	var k lock.Keepers
	if vl, ok := s.Kinds[plan.PhaseSecrets].(vaultLocker); ok {
		k.Vault = func(ctx context.Context, store *model.Vault, tenant string) (lock.Store, error) {
			return vl.LockStore(ctx, store, tenant, run, nil)
		}
	}
	if t.Locks != nil && t.Locks.PowerDNS != nil {
		if zl, ok := s.Providers[t.Locks.PowerDNS.Provider.Kind()].(zoneLocker); ok {
			k.PowerDNS = func(provider model.Provider, zone, tenant string) (lock.Store, error) {
				return zl.TenantLockStore(provider, zone, tenant, run, nil)
			}
		}
	}
	return lock.For(ctx, t, k, specDirs)
}

// Prefetcher is the backend of z's provider when it reads zones ahead
// of their steps (backends.Prefetcher), else nil.
func (s *Set) Prefetcher(z *model.Zone) backends.Prefetcher {
	pf, _ := s.Providers[z.Provider.Kind()].(backends.Prefetcher)
	return pf
}
