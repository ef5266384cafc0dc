package providers

import (
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

// TestEveryProviderKindDeclaresRules: each DNS provider the table
// builds a driver for declares its record rules under its kind, and so
// does every kind site.cue can name (model.Provider), since vet refuses
// a zone on a kind it has no rules for rather than check it against
// nothing (issue 25: the rules are the provider's data, not the
// compiler's code).
func TestEveryProviderKindDeclaresRules(t *testing.T) {
	set := RecordRules()
	s := Open(runstate.Start(backends.NewRun()))
	defer s.Close()
	kinds := map[string]bool{}
	for kind := range s.Providers {
		kinds[kind] = true
	}
	for _, p := range []model.Provider{{PowerDNS: &model.PowerDNS{}}, {Cloudflare: &model.Cloudflare{}}} {
		kinds[p.Kind()] = true
	}
	for kind := range kinds {
		r := set[kind]
		switch {
		case r == nil:
			t.Errorf("provider kind %q declares no record rules", kind)
		case r.Kind != kind || r.Name == "":
			t.Errorf("provider kind %q: its rules say kind %q, name %q", kind, r.Kind, r.Name)
		}
	}
	if len(set) != len(kinds) {
		t.Errorf("rules for %d kinds, %d provider kinds", len(set), len(kinds))
	}
}
