package providers

import (
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/plan"
)

// TestBackendsArePerRun: each run builds its own drivers, so nothing one
// run learned (a secret store's silent address, a host's observation)
// reaches the next. (Moved from cmd/site with the table.)
func TestBackendsArePerRun(t *testing.T) {
	a, b := Open(runstate.Start(backends.NewRun())), Open(runstate.Start(backends.NewRun()))
	defer a.Close()
	defer b.Close()
	kinds := []plan.Phase{plan.PhaseSecrets}
	if a.Absent() == nil {
		kinds = append(kinds, plan.PhaseVM, plan.PhaseNetwork, plan.PhaseStorage)
	}
	for _, kind := range kinds {
		if a.Kinds[kind] == nil {
			t.Fatalf("no %s backend built", kind)
		}
		if a.Kinds[kind] == b.Kinds[kind] {
			t.Errorf("two runs share one %s driver", kind)
		}
	}
	for _, p := range []string{"powerdns", "cloudflare"} {
		if a.Providers[p] == nil || a.Providers[p] == b.Providers[p] {
			t.Errorf("%s: got %v and %v, want one driver per run", p, a.Providers[p], b.Providers[p])
		}
	}
}
