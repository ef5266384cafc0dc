package providers

import (
	"context"
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// ReadCredential reads the credential of provider name (of kind) for
// site export and site disown --provider into run when it is in a Vault
// store (secret not nil), as a secret step of diff would: the value
// goes to run, where the provider's driver asks for it
// (Run.Credential). These commands have no steps to defer, so a store
// that does not answer must not advise --ack GATE-SECRET-UNREACHABLE:
// with the gate counted as given, its message leaves that out, and the
// read still fails.
func (s *Set) ReadCredential(ctx context.Context, run *backends.Run, kind, name string, secret *graph.Step) error {
	if secret == nil {
		return nil
	}
	run.Acked[plan.GateSecretUnreachable] = true
	if _, err := s.Kinds[plan.PhaseSecrets].Plan(ctx, secret, run); err != nil {
		what := map[string]string{"powerdns": "API key", "cloudflare": "token"}[kind]
		return fmt.Errorf("--provider %s: its %s is in Vault store %s, which could not be read: %w", name, what, secret.Secret.Ref.Vault, err)
	}
	return nil
}
