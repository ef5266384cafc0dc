package graph

import (
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Undeclared is a resource on a host that carries a tenant's owner
// marker but that the tenant's spec no longer declares. There is no
// state file to remember it, so a backend finds it by observing (see
// backends.Discoverer) and it becomes a step of its own, named as the
// step that made it was ("vm/URI/NAME", "network/URI/NAME"): a plan
// lists its removal under that ID, and --target can name it.
type Undeclared struct {
	Host, Name string
}

// UndeclaredVM is the step that removes a domain of tenant t on host
// that t no longer declares.
func UndeclaredVM(t *model.Tenant, host, name string) *Step {
	return &Step{ID: VMStepID(host, name), Phase: plan.PhaseVM, Tenant: t.Name, TenantSpec: t, Undeclared: &Undeclared{Host: host, Name: name}}
}

// UndeclaredNetwork is the step that removes a network of tenant t on
// host that t no longer declares.
func UndeclaredNetwork(t *model.Tenant, host, name string) *Step {
	return &Step{ID: NetworkStepID(host, name), Phase: plan.PhaseNetwork, Tenant: t.Name, TenantSpec: t, Undeclared: &Undeclared{Host: host, Name: name}}
}

// With returns g with the steps extra added, in order. A step whose ID
// a step of the same tenant in g has is left out. One whose ID another
// tenant's step has (tenant evil declares a VM db where victim's
// dropped domain db is) keeps its place beside that step under the ID
// with "@" and its tenant added ("vm/URI/db@victim"), which no declared
// step can have: the resource is the tenant's that marked it, and
// another tenant's declaration must not hide its removal from a run of
// both (the declared step is refused, as the resource is not its
// tenant's).
func (g *Graph) With(extra []*Step) (*Graph, error) {
	if len(extra) == 0 {
		return g, nil
	}
	steps := make([]*Step, 0, len(g.Steps)+len(extra))
	copies := make(map[string]*Step, len(g.Steps))
	for _, s := range g.Steps {
		cp := *s
		steps = append(steps, &cp)
		copies[cp.ID] = &cp
	}
	for _, s := range extra {
		switch d := copies[s.ID]; {
		case d == nil:
		case d.Tenant == s.Tenant:
			continue
		default:
			cp := *s
			cp.ID += "@" + s.Tenant
			s = &cp
			d.Removal = cp.ID
		}
		steps = append(steps, s)
	}
	return order(steps)
}

// NamesOnly reports whether every one of patterns is the exact ID of a
// step in g, with no glob in it: then no step found by observing (see
// With) can match one, and a caller need not look for them.
func (g *Graph) NamesOnly(patterns []string) bool {
	if len(patterns) == 0 {
		return false
	}
	for _, p := range patterns {
		if strings.ContainsAny(p, `*?[\`) || g.byID[p] == nil {
			return false
		}
	}
	return true
}

// MayNameUndeclared reports whether one of targets may name the removal
// of a domain or network that a graph built without observing cannot
// list: it names a VM or network step and g has such steps to look from.
func (g *Graph) MayNameUndeclared(targets []string) bool {
	kinds := map[string]bool{}
	for _, s := range g.Steps {
		if !s.Prerequisite && (s.VM != nil || s.Network != nil) {
			kinds[strings.SplitN(s.ID, "/", 2)[0]+"/"] = true
		}
	}
	for _, t := range targets {
		for k := range kinds {
			if strings.HasPrefix(t, k) {
				return true
			}
		}
	}
	return false
}

// Phases lists, in plan.Phases' order, the phases g has steps in.
func (g *Graph) Phases() []plan.Phase {
	var have []plan.Phase
	for _, ph := range plan.Phases {
		for _, s := range g.Steps {
			if s.Phase == ph {
				have = append(have, ph)
				break
			}
		}
	}
	return have
}
