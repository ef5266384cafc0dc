package providers

import (
	"context"
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// readCredential reads the credential of provider name (of kind) for
// site export and site disown --provider into run when it is in a Vault
// store (secret not nil), as a secret step of diff would: the value
// goes to run, where the provider's driver asks for it
// (runstate.State.Credential). These commands have no steps to defer, so a store
// that does not answer must not advise --ack GATE-SECRET-UNREACHABLE:
// with the gate counted as given, its message leaves that out, and the
// read still fails.
func (s *Set) readCredential(ctx context.Context, run *backends.Run, kind, name string, secret *graph.Step) error {
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

// One is one provider's backend opened alone, outside a plan (site
// export, site disown), with the run that holds its credential. Close
// it at the end.
type One[B any] struct {
	B   B
	Run *backends.Run
	*Set
}

// OpenOne opens the backends for one provider of kind, that must be a
// B (a backends.ZoneExporter, a backends.Disowner: can says what B
// does, for the error), and reads its credential (readCredential: name
// is --provider, secret its Vault read or nil).
func OpenOne[B any](ctx context.Context, kind, can, name string, secret *graph.Step) (*One[B], error) {
	run := engine.NewRun()
	o := &One[B]{Run: run, Set: Open(run)}
	b, ok := o.Providers[kind].(B)
	// On failure nothing has connected yet (drivers connect on first
	// use), so closing has nothing to report.
	if !ok {
		_ = o.Close()
		return nil, fmt.Errorf("this build of site has no %s backend that can %s", kind, can)
	}
	o.B = b
	if err := o.readCredential(ctx, run, kind, name, secret); err != nil {
		_ = o.Close()
		return nil, err
	}
	return o, nil
}
