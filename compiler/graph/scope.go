package graph

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file scopes a spec's graph as diff, apply, graph and completion
// ask: --only, the steps only observing finds, then --target.

// Scope builds spec's step graph and keeps the steps of the phases in
// only (all when empty) whose IDs match targets (all when empty), with
// the secret steps they need. A target that matches no step in scope is
// an error listing what is.
//
// discover, when not nil, adds the steps only observing finds (a domain
// or network a tenant no longer declares) before targets pick steps,
// unless every target names a declared step: site diff and apply pass
// it, site graph and completion do not look at live systems.
func Scope(spec *model.Spec, only []plan.Phase, targets []string, discover func(*Graph) ([]*Step, error)) (*Graph, error) {
	g, err := Build(spec)
	if err != nil {
		return nil, fmt.Errorf("compiling the step graph: %w", err)
	}
	// --only first, so a --target naming a step that --only left out is
	// an error (listing what is in scope) rather than an empty run.
	g = g.Only(only)
	looked := false
	var unlisted error
	if discover != nil && !g.NamesOnly(targets) {
		var found []*Step
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

// OnlyKeptNone says that --only phases kept no step of the specs, and
// which phases all (their whole graph, nil when it did not load) has
// steps in.
func OnlyKeptNone(phases []plan.Phase, all *Graph) string {
	msg := "--only " + joinPhases(phases) + " keeps no step of these specs, so the graph is empty"
	if all == nil {
		return msg
	}
	have := all.Phases()
	if len(have) == 0 {
		return msg + "; the specs have no steps at all"
	}
	return msg + "; the specs have steps in the phases " + joinPhases(have)
}

func joinPhases(phases []plan.Phase) string {
	names := make([]string, len(phases))
	for i, ph := range phases {
		names[i] = string(ph)
	}
	return strings.Join(names, ",")
}
