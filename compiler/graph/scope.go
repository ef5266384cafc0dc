package graph

import (
	"fmt"

	"github.com/site-tools/site/compiler/plan"
)

// Scope keeps the steps of g in the phases only (all when empty) whose
// IDs match targets (all when empty), with the secret steps they need;
// a target that matches no step in scope is an error listing what is.
//
// discover, when not nil, adds the steps only observing finds (a domain
// or network a tenant no longer declares, see backends.Discoverer)
// before targets pick steps, unless every target names a declared step:
// site diff and apply pass it, site graph and completion do not look at
// live systems.
func (g *Graph) Scope(only []plan.Phase, targets []string, discover func(*Graph) ([]*Step, error)) (*Graph, error) {
	// --only first, so a --target naming a step that --only left out is
	// an error (listing what is in scope) rather than an empty run.
	g = g.Only(only)
	looked := false
	var unlisted error
	if discover != nil && !g.NamesOnly(targets) {
		var found []*Step
		var err error
		found, unlisted = discover(g)
		if g, err = g.With(found); err != nil {
			return nil, fmt.Errorf("compiling the step graph: %w", err)
		}
		looked = true
	}
	scoped, err := g.Targets(targets)
	switch {
	case err == nil:
		return scoped, nil
	case unlisted != nil:
		return nil, fmt.Errorf("--target: %w\n(and what the tenants no longer declare could not be listed, so it is not among them: %v)", err, unlisted)
	case !looked && g.MayNameUndeclared(targets):
		return nil, fmt.Errorf("--target: %w\n(a domain or network a tenant no longer declares is a step only site diff and site apply find, by observing the host)", err)
	}
	return nil, fmt.Errorf("--target: %w", err)
}
