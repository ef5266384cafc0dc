package lock

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// TestFor: the store of a tenant's lock is what site.cue's locks names,
// and nothing else (no spec, no zone of the tenant's).
func TestFor(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := filepath.Join(t.TempDir(), "locks")
	bao := &model.Vault{Name: "bao"}
	pdns := model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{}}
	var asked []string
	k := Keepers{
		Vault: func(_ context.Context, store *model.Vault, tenant string) (Store, error) {
			asked = append(asked, "vault "+store.Name+" "+tenant)
			return nil, errors.New("no address answered")
		},
		PowerDNS: func(p model.Provider, zone, tenant string) (Store, error) {
			asked = append(asked, "powerdns "+p.Name+" "+zone+" "+tenant)
			return File{Path: "/x"}, nil
		},
	}
	tests := []struct {
		name  string
		locks *model.Locks
		k     Keepers
		where string // the store's Where, or the error
		asked string
	}{
		{"default", nil, k, "file " + filepath.Join(state, "site", "locks", "office1.lock"), ""},
		{"dir", &model.Locks{Dir: dir}, k, "file " + filepath.Join(dir, "office1.lock"), ""},
		{"vault", &model.Locks{Vault: bao}, k, "tenant office1's apply lock lives in vault bao (site.cue locks), which cannot hold it now: no address answered", "vault bao office1"},
		{"powerdns", &model.Locks{PowerDNS: &model.LockZone{Provider: pdns, Zone: "locks.test."}}, k, "file /x", "powerdns pdns locks.test. office1"},
		{"no vault backend", &model.Locks{Vault: bao}, Keepers{}, "this build of site has no Vault backend", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			s, err := For(context.Background(), &model.Tenant{Name: "office1", Locks: tt.locks}, tt.k, nil)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = s.Where()
			}
			if !strings.Contains(got, tt.where) || strings.Join(asked, ",") != tt.asked {
				t.Errorf("For = %q (asked %q), want %q (asked %q)", got, asked, tt.where, tt.asked)
			}
		})
	}
}

func TestNotes(t *testing.T) {
	live, dead, claim := holder("A"), holder("B"), holder("C")
	live.Expires, dead.Expires, claim.Expires = t0.Add(time.Minute), t0.Add(-time.Minute), t0.Add(time.Minute)
	claim.State = Claim
	got := Notes("office1", "file x", []Holder{live, dead, claim}, t0)
	if len(got) != 2 || !strings.HasPrefix(got[0], "note: tenant office1 is being applied now by host runner-A") ||
		!strings.HasPrefix(got[1], "note: tenant office1's apply lock in file x is stale: its holder (host runner-B") {
		t.Errorf("Notes = %q", got)
	}
}
