package journal

import (
	"context"
	"errors"
	"fmt"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/compiler/model"
)

// Store is where one tenant's journal lives.
type Store interface {
	// Where names the store in messages.
	Where() string
	// Append writes e and removes the oldest entries beyond Keep.
	Append(ctx context.Context, e Entry) error
	// List returns the newest entries, at most Keep, newest first, and
	// a line for each that was there but could not be read (it is not
	// site's: nothing it says is trusted).
	List(ctx context.Context) ([]Entry, []string, error)
	// Get returns the entry id, which must be a ValidID.
	Get(ctx context.Context, id string) (*Entry, error)
}

// ErrAbsent is the journal of a tenant whose lock lives in a store that
// cannot hold a journal in this build of site.
var ErrAbsent = errors.New("not built")

// Keepers are the backends of this build that can keep a journal
// outside a directory: each nil when the build has none.
type Keepers struct {
	// Vault is tenant's journal in store (a KV v2 secret).
	Vault func(ctx context.Context, store *model.Vault, tenant string) (Store, error)
	// PowerDNS is tenant's journal in the metadata of z.Journal, the
	// journal zone beside the lock zone.
	PowerDNS func(z *model.LockZone, tenant string) (Store, error)
}

// For is tenant t's journal: in the store of its apply lock, as
// site.cue alone says (see lock.For). A lock directory's journal is a
// directory beside the lock file; a Vault's, a KV v2 secret beside the
// lock's; a PowerDNS lock zone's, the metadata of the journal zone
// site.cue names beside it (never the lock zone's own, which every lock
// read downloads whole). Without a journal zone, For returns an error
// wrapping ErrAbsent.
func For(ctx context.Context, t *model.Tenant, k Keepers, specDirs []string) (Store, error) {
	l := t.Locks
	switch {
	case l != nil && l.Vault != nil && k.Vault == nil:
		return nil, fmt.Errorf("tenant %s's apply lock lives in vault %s (site.cue locks), and this build of site has no Vault backend for its journal: %w", t.Name, l.Vault.Name, ErrAbsent)
	case l != nil && l.Vault != nil:
		s, err := k.Vault(ctx, l.Vault, t.Name)
		if err != nil {
			return nil, fmt.Errorf("tenant %s's journal lives in vault %s (site.cue locks), which cannot hold it now: %w", t.Name, l.Vault.Name, err)
		}
		return s, nil
	case l != nil && l.PowerDNS != nil && l.PowerDNS.Journal == "":
		return nil, fmt.Errorf("tenant %s's apply lock lives in PowerDNS zone %s (site.cue locks), and site.cue names no journal zone beside it (locks: powerdns: journal: ZONE), so a journal is %w: its applies are not journalled, and site undo cannot undo them", t.Name, l.PowerDNS.Zone, ErrAbsent)
	case l != nil && l.PowerDNS != nil && k.PowerDNS == nil:
		return nil, fmt.Errorf("tenant %s's journal lives in PowerDNS zone %s (site.cue locks), and this build of site has no PowerDNS backend for it: %w", t.Name, l.PowerDNS.Journal, ErrAbsent)
	case l != nil && l.PowerDNS != nil:
		s, err := k.PowerDNS(l.PowerDNS, t.Name)
		if err != nil {
			return nil, fmt.Errorf("tenant %s's journal lives in PowerDNS zone %s (site.cue locks), which cannot hold it now: %w", t.Name, l.PowerDNS.Journal, err)
		}
		return s, nil
	}
	var dir string
	if l != nil {
		dir = l.Dir
	} else {
		var err error
		if dir, err = lock.DefaultDir(); err != nil {
			return nil, err
		}
	}
	// DirFile checks the directory as the lock's (absolute, outside
	// the specs) and the tenant's name as a file name.
	f, err := lock.DirFile(dir, t.Name, specDirs)
	if err != nil {
		return nil, fmt.Errorf("tenant %s's journal: %w", t.Name, err)
	}
	return NewDir(f.Path[:len(f.Path)-len(".lock")]+".journal", t.Name)
}
