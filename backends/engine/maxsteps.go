package engine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/graph"
)

// WithinMaxSteps refuses a scope of more than max steps (--max-steps; 0
// is no bound), naming how many each tenant brings, most first: each
// step costs requests with the operator's credentials, and a pull
// request's check runs before anyone has read it.
func WithinMaxSteps(g *graph.Graph, max int) error {
	if max == 0 || len(g.Steps) <= max {
		return nil
	}
	by := map[string]int{}
	for _, s := range g.Steps {
		owner := "the operator's"
		if s.TenantSpec != nil {
			owner = "tenant " + s.TenantSpec.Name
		}
		by[owner]++
	}
	owners := slices.SortedFunc(maps.Keys(by), func(a, b string) int {
		return cmp.Or(by[b]-by[a], strings.Compare(a, b))
	})
	counts := make([]string, len(owners))
	for i, o := range owners {
		counts[i] = fmt.Sprintf("%s %d", o, by[o])
	}
	return fmt.Errorf("the scope holds %d steps, more than --max-steps %d allows (%s), so nothing was observed: narrow the scope (PATH, --only, --target) or raise --max-steps if these are expected",
		len(g.Steps), max, strings.Join(counts, ", "))
}

// DiscoverWithin is Discover for a diff bounded by --max-steps (max; 0
// is no bound): listing what the tenants no longer declare reads every
// host the scope's VMs and networks name, so a scope past the bound
// already is not listed, and WithinMaxSteps then refuses it. Without
// --target the scope holds every step the listing is given, and only
// gains steps from it; a --target may narrow it below the bound, so
// with one the listing is left to decide.
func (s *Session) DiscoverWithin(max int, targets []string) func(*graph.Graph) ([]*graph.Step, error) {
	discover := s.Discover()
	if max == 0 || len(targets) > 0 {
		return discover
	}
	return func(g *graph.Graph) ([]*graph.Step, error) {
		if len(g.Steps) > max {
			return nil, nil
		}
		return discover(g)
	}
}
