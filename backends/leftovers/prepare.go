package leftovers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

// VaultCredentials is a Finder's Prepare: it reads a provider's
// credential into run when it is in a Vault store of vaults, through
// secrets (the secrets driver), as diff's secret step would, one read
// per secret.
func VaultCredentials(secrets backends.Driver, vaults map[string]*model.Vault, run *backends.Run) func(context.Context, model.Provider) error {
	read := map[string]error{}
	return func(ctx context.Context, p model.Provider) error {
		ref := p.Credential().Vault
		if ref == nil {
			return nil // from the environment, read when used
		}
		id := graph.SecretStepID(*ref)
		if err, ok := read[id]; ok {
			return err
		}
		// leftovers has no steps to defer, so a store that does not
		// answer must not advise --ack GATE-SECRET-UNREACHABLE: with the
		// gate counted as given its message leaves that out.
		run.Acked[plan.GateSecretUnreachable] = true
		step := &graph.Step{ID: id, Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: vaults[ref.Vault], Ref: *ref}}
		_, err := secrets.Plan(ctx, step, run)
		if err != nil {
			err = fmt.Errorf("its credential is in Vault store %s, which could not be read: %w", ref.Vault, err)
		}
		read[id] = err
		return err
	}
}

// Only narrows in to the provider name of the operator's file config
// (site leftovers --provider NAME), and no host.
func (in Input) Only(name, config string) (Input, error) {
	p, ok := in.Providers[name]
	if !ok {
		names := slices.Sorted(maps.Keys(in.Providers))
		msg := fmt.Sprintf("--provider %s: %s declares no provider %s", name, config, name)
		if near := spelling.Nearest(name, names); near != "" {
			msg += ": did you mean " + near + "?"
		}
		return in, fmt.Errorf("%s (its providers: %s)", msg, cmp.Or(strings.Join(names, ", "), "none"))
	}
	in.Providers = map[string]model.Provider{name: p}
	in.Hosts, in.Images = nil, nil
	return in, nil
}
