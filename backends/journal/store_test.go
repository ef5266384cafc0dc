package journal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// fakeStore is a Store that says where it is, for TestForPowerDNS.
type fakeStore struct{ Dir }

func (f fakeStore) Where() string { return "zone " + f.Path + " tenant " + f.Tenant }

// TestForPowerDNS: a tenant whose lock lives in a PowerDNS zone keeps
// its journal in the journal zone site.cue names beside it, through the
// PowerDNS keeper; without a journal zone, or without a keeper, there
// is none (ErrAbsent), and the error says what to write in site.cue.
func TestForPowerDNS(t *testing.T) {
	pz := &model.LockZone{Provider: model.Provider{Name: "pdns"}, Zone: "locks.example.test."}
	keeper := func(z *model.LockZone, tenant string) (Store, error) {
		return fakeStore{Dir{Path: z.Journal, Tenant: tenant}}, nil
	}
	for _, c := range []struct {
		name    string
		journal string
		k       Keepers
		where   string // "" when ErrAbsent
		says    string
	}{
		{"journal zone", "journal.example.test.", Keepers{PowerDNS: keeper}, "zone journal.example.test. tenant office1", ""},
		{"no journal zone", "", Keepers{PowerDNS: keeper}, "", "locks: powerdns: journal: ZONE"},
		{"no keeper", "journal.example.test.", Keepers{}, "", "no PowerDNS backend"},
	} {
		t.Run(c.name, func(t *testing.T) {
			z := *pz
			z.Journal = c.journal
			s, err := For(context.Background(), &model.Tenant{Name: "office1", Locks: &model.Locks{PowerDNS: &z}}, c.k, nil)
			if c.where != "" {
				if err != nil || s.Where() != c.where {
					t.Fatalf("For: %v, %v; want the store in %s", s, err, c.where)
				}
				return
			}
			if !errors.Is(err, ErrAbsent) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("For: %v, want ErrAbsent saying %q", err, c.says)
			}
		})
	}
}
