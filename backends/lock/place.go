package lock

import (
	"context"
	"fmt"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// Keepers are the backends of this build that can keep a lock: each
// nil when the build has none.
type Keepers struct {
	// Vault is tenant's lock in store (a KV v2 secret).
	Vault func(ctx context.Context, store *model.Vault, tenant string) (Store, error)
	// PowerDNS is tenant's lock in the metadata of zone on provider.
	PowerDNS func(provider model.Provider, zone, tenant string) (Store, error)
}

// For is the store of tenant t's apply lock, as site.cue alone says
// (t.Locks): every run of the tenant finds the same one, whatever part
// of the tenant it touches. A lock directory may not lie at or below
// any of specDirs (the directories of site.cue and of the tenants'
// specs, which a pull request writes); without locks it is DefaultDir.
func For(ctx context.Context, t *model.Tenant, k Keepers, specDirs []string) (Store, error) {
	l := t.Locks
	switch {
	case l != nil && l.Vault != nil:
		if k.Vault == nil {
			return nil, fmt.Errorf("tenant %s's apply lock: this build of site has no Vault backend for site.cue's locks: vault", t.Name)
		}
		s, err := k.Vault(ctx, l.Vault, t.Name)
		if err != nil {
			return nil, fmt.Errorf("tenant %s's apply lock lives in vault %s (site.cue locks), which cannot hold it now: %w", t.Name, l.Vault.Name, err)
		}
		return s, nil
	case l != nil && l.PowerDNS != nil:
		if k.PowerDNS == nil {
			return nil, fmt.Errorf("tenant %s's apply lock: this build of site has no PowerDNS backend for site.cue's locks: powerdns", t.Name)
		}
		return k.PowerDNS(l.PowerDNS.Provider, l.PowerDNS.Zone, t.Name)
	}
	var dir string
	if l != nil {
		dir = l.Dir
	} else {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	f, err := DirFile(dir, t.Name, specDirs)
	if err != nil {
		return nil, fmt.Errorf("tenant %s's apply lock: %w", t.Name, err)
	}
	return f, nil
}

// Notes are what site diff says of tenant's lock, whose holders (in
// where) are hs: a run applying the tenant now, or a run that died
// holding it. A claim is neither: a run taking the lock, or one cut off
// while taking it, which changed nothing.
func Notes(tenant, where string, hs []Holder, now time.Time) []string {
	var out []string
	for _, h := range hs {
		switch {
		case h.State == Claim:
		case h.Live(now):
			out = append(out, fmt.Sprintf("note: tenant %s is being applied now by %s (lock in %s); what is live may be half-way through that apply", tenant, h, where))
		default:
			out = append(out, fmt.Sprintf("note: tenant %s's apply lock in %s is stale: its holder (%s) died without releasing it, and may have left changes half-done; the next site apply takes it over, or site unlock %s --ack GATE-LOCK-BREAK breaks it",
				tenant, where, h, tenant))
		}
	}
	return out
}
