package graph

import (
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// NamesStepID names the step that writes tenant's single names inside
// another tenant's zone (model.Tenant.Names): beside that zone's own
// step, which keeps ZoneStepID.
func NamesStepID(zone, tenant string) string { return ZoneStepID(zone) + "@" + tenant }

// names adds the steps of t's single names, one per zone they lie in.
// Each plans only its names against the whole zone's observation, so
// it needs no order against the zone's own step: neither writes what
// the other plans (the zone's step leaves names granted away alone).
func (l *stepList) names(spec *model.Spec, t *model.Tenant) error {
	for _, z := range t.Names {
		s := &Step{ID: NamesStepID(z.Name, t.Name), Phase: plan.PhaseDNS, Tenant: t.Name, TenantSpec: t, Zone: z}
		id, err := l.needSecret(spec, z.Provider.Credential())
		if err != nil {
			return err
		}
		if id != "" {
			s.Deps = append(s.Deps, id)
		}
		l.steps = append(l.steps, s)
	}
	return nil
}
