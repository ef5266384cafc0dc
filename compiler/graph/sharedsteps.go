package graph

import (
	"fmt"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// stepList is the steps Build makes, in the order it makes them, with
// the steps many others share (a store's secret, a host's pool, a
// base image) made once, where they are first needed.
type stepList struct {
	steps   []*Step
	secrets map[string]*Step // by step ID
	storage map[string]bool  // pool and image step IDs made already
}

// needSecret returns the step that reads credential c from the store
// spec declares, made once for every step that needs it; "" for a
// credential no store holds.
func (l *stepList) needSecret(spec *model.Spec, c model.Credential) (string, error) {
	if c.Vault == nil {
		return "", nil
	}
	store := spec.Vaults[c.Vault.Vault]
	if store == nil {
		return "", fmt.Errorf("a credential refers to vault %q, which site.cue does not declare", c.Vault.Vault)
	}
	id := SecretStepID(*c.Vault)
	if _, ok := l.secrets[id]; !ok {
		s := &Step{ID: id, Phase: plan.PhaseSecrets,
			Secret: &Secret{Store: store, Ref: *c.Vault}}
		l.secrets[id] = s
		l.steps = append(l.steps, s)
	}
	return id, nil
}

// needPool returns the step of a declared pool, made once for every
// VM on the host that uses it: pools are the operator's.
func (l *stepList) needPool(p *model.Pool) string {
	id := PoolStepID(p.Host, p.Name)
	if !l.storage[id] {
		l.storage[id] = true
		l.steps = append(l.steps, &Step{ID: id, Phase: plan.PhaseStorage, Pool: p})
	}
	return id
}

// needImage returns the step that uploads a declared base image,
// after its pool's.
func (l *stepList) needImage(img *model.Image) string {
	id := ImageStepID(img.Pool.Host, img.Pool.Name, img.Name)
	if !l.storage[id] {
		l.storage[id] = true
		// Before the append below reads l.steps: it may add the
		// pool's step, which then comes before the image's.
		pool := l.needPool(img.Pool)
		l.steps = append(l.steps, &Step{ID: id, Phase: plan.PhaseStorage, Image: img, Deps: []string{pool}})
	}
	return id
}
