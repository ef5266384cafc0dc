package compiler

import (
	"path/filepath"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// rawLocks is site.cue's locks: where every tenant's apply lock lives.
type rawLocks struct {
	Dir      string `json:"dir"`
	Vault    string `json:"vault"`
	PowerDNS *struct {
		Provider string `json:"provider"`
		Zone     string `json:"zone"`
		Journal  string `json:"journal"`
	} `json:"powerdns"`
}

// readLocks resolves site.cue's locks against the stores and providers
// it declares. The lock is taken before any secret is read (a run
// holds it from before its first observation), so a store reached with
// a credential kept in Vault cannot hold it. Nil when site.cue names
// none: the lock then lives in the user's state directory (see
// backends/lock.DefaultDir), which only the runner decides.
func readLocks(raw *rawLocks, o *operator, pos *positions, errorf func([]string, string, ...any)) *model.Locks {
	if raw == nil {
		return nil
	}
	p := []string{"locks"}
	l := &model.Locks{Pos: pos.pos(p...)}
	set := 0
	if raw.Dir != "" {
		set++
		if !filepath.IsAbs(raw.Dir) {
			errorf(at(p, "dir"), "lock directory %q is not absolute: name a directory outside the repository, e.g. \"/var/lib/site/locks\"", raw.Dir)
		}
		l.Dir = filepath.Clean(raw.Dir)
	}
	if raw.Vault != "" {
		set++
		if l.Vault = o.vaults[raw.Vault]; l.Vault == nil {
			errorf(at(p, "vault"), "no vault %q is declared; declare it under vaults, or use one of: %s", raw.Vault, names(o.vaults))
		}
	}
	if r := raw.PowerDNS; r != nil {
		set++
		pp := at(p, "powerdns")
		prov, ok := o.providers[r.Provider]
		switch {
		case !ok:
			errorf(at(pp, "provider"), "no provider %q is declared; declare it under providers, or use one of: %s", r.Provider, names(o.providers))
		case prov.PowerDNS == nil:
			errorf(at(pp, "provider"), "provider %s is not a PowerDNS server; name one that is, or keep the locks in a dir or vault", r.Provider)
		case prov.PowerDNS.APIKey.Env == "":
			errorf(at(pp, "provider"), "provider %s's api_key comes from a vault, and the lock is taken before any secret is read: give it api_key: env: NAME, or keep the locks in a vault", r.Provider)
		}
		zone, err := dnsname.Canonical(r.Zone, ".")
		if err != nil {
			errorf(at(pp, "zone"), "%v", err)
		}
		l.PowerDNS = &model.LockZone{Provider: prov, Zone: zone}
		if r.Journal != "" {
			l.PowerDNS.Journal, err = dnsname.Canonical(r.Journal, ".")
			switch {
			case err != nil:
				errorf(at(pp, "journal"), "%v", err)
			case l.PowerDNS.Journal == zone:
				errorf(at(pp, "journal"), "the journal zone is the lock zone %s, whose metadata every lock read of every tenant downloads: name another existing zone of the server", zone)
			}
		}
	}
	if set != 1 {
		errorf(p, "name one lock store: locks: dir: \"/ABS/PATH\", locks: vault: NAME or locks: powerdns: {provider: NAME, zone: ZONE}")
	}
	return l
}

// Locks returns where site.cue keeps the apply locks; nil when it names
// no store (or for a nil file).
func (f *OperatorFile) Locks() *model.Locks {
	if f == nil {
		return nil
	}
	return f.o.locks
}
