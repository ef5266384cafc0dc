package leftovers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

// marksOf is a MarkReader whose providers list the zones zones holds
// by provider name (an error for a provider it does not hold), each
// zone with the one marker of tenant owner.
type marksOf struct {
	zones map[string][]backends.ListedZone
	owner string
}

func (m marksOf) ListZones(_ context.Context, p model.Provider, _ *backends.Run) ([]backends.ListedZone, error) {
	if z, ok := m.zones[p.Name]; ok {
		return z, nil
	}
	return nil, errors.New("HTTP 403: the token may not list zones")
}

func (m marksOf) ZoneMarks(_ context.Context, _ model.Provider, z backends.ListedZone, _ *backends.Run) ([]backends.Mark, error) {
	return []backends.Mark{{Name: "www." + z.Name, Type: "A", Tenant: m.owner}}, nil
}

// TestAProviderNotListedHidesNoTenantsZone: two Cloudflare tokens of
// one account are two providers; tenant keep declares its zone through
// a, whose zones could not be listed, so the zone's id is not known,
// and b lists the zone. Whether it is keep's live zone or a copy in
// another account only a's listing would say: it is not judged, and no
// disown command is printed.
func TestAProviderNotListedHidesNoTenantsZone(t *testing.T) {
	cf := func(name, env string) model.Provider {
		return model.Provider{Name: name, Cloudflare: &model.Cloudflare{Token: model.Credential{Env: env}}}
	}
	a, b := cf("a", "CF_A"), cf("b", "CF_B")
	keep := &model.Tenant{Name: "keep", Zones: []*model.Zone{{Name: "keep.test.", Provider: a}}}
	f := &Finder{DNS: map[string]backends.MarkReader{"cloudflare": marksOf{zones: map[string][]backends.ListedZone{"b": {{Name: "keep.test.", ID: "z1"}}}, owner: "keep"}},
		Run: runstate.Start(backends.NewRun()), Command: func(sub string, args ...string) string { return "site " + sub + " " + strings.Join(args, " ") }}
	r := f.Find(context.Background(), Input{Tenants: []*model.Tenant{keep}, Providers: map[string]model.Provider{"a": a, "b": b}})
	if len(r.Providers) != 2 || r.Providers[0].Error == "" || len(r.Providers[1].Zones) != 1 {
		t.Fatalf("want a unlisted and keep.test. read on b, got %+v", r.Providers)
	}
	if z := r.Providers[1].Zones[0]; z.NotJudged == "" || z.Remove != "" {
		t.Errorf("keep.test. on b: not judged %q, remove %q; want a reason and no command", z.NotJudged, z.Remove)
	}
}
