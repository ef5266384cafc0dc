package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

// kindWords names a provider kind in messages.
var kindWords = map[string]string{"powerdns": "PowerDNS", "cloudflare": "Cloudflare"}

// declaredProvider is a provider --provider NAME names: as the
// operator's file declares it, with its credential as that file gives
// it. A credential in a Vault store comes with secret, the step that
// reads it as diff and apply read it; nil for one from the environment.
type declaredProvider struct {
	p      model.Provider
	secret *graph.Step
	config string // the operator's file
	read   *compiler.OperatorFile
}

// byProvider resolves --provider NAME for export, disown and leftovers:
// the provider of kind (powerdns, cloudflare; any when empty) that the
// operator's file (--config, or found as for vet) declares as NAME.
// where lists the flags --provider stands for, which must not be given
// beside it; suggest is the command to run for a provider of another
// kind.
func byProvider(cmd *cobra.Command, kind, name string, suggest func(kind string) string, where ...string) (declaredProvider, error) {
	for _, f := range where {
		if cmd.Flags().Changed(f) {
			return declaredProvider{}, fmt.Errorf("--provider %s and --%s both say where the server is: give one (--provider takes %s from site.cue)", name, f, providerFields[kind])
		}
	}
	config, err := compiler.FindConfig(configFlag, nil)
	if err != nil {
		return declaredProvider{}, fmt.Errorf("--provider %s: %w", name, err)
	}
	read, err := readOperator(config)
	if err != nil {
		return declaredProvider{}, err
	}
	p, ok := read.Providers()[name]
	switch {
	case !ok:
		names := providersOf(read, kind)
		msg := fmt.Sprintf("--provider %s: %s declares no provider %s", name, config, name)
		if near := spelling.Nearest(name, names); near != "" {
			msg += ": did you mean " + near + "?"
		}
		if len(names) == 0 {
			return declaredProvider{}, fmt.Errorf("%s (and no %sprovider at all: %s)", msg, kindWord(kind), noProviderFlags[kind])
		}
		return declaredProvider{}, fmt.Errorf("%s (its %sproviders: %s)", msg, kindWord(kind), strings.Join(names, ", "))
	case kind != "" && p.Kind() != kind:
		return declaredProvider{}, fmt.Errorf("--provider %s: provider %s in %s is a %s provider: %s",
			name, name, config, kindWords[p.Kind()], suggest(p.Kind()))
	}
	p.Name = name
	d := declaredProvider{p: p, config: config, read: read}
	ref := p.Credential().Vault
	if ref == nil {
		return d, nil
	}
	// The stores are in the model a load builds; loading no tenant file
	// builds that of site.cue alone.
	spec, err := compiler.Load(config, nil)
	if err != nil {
		return declaredProvider{}, err
	}
	d.secret = &graph.Step{ID: graph.SecretStepID(*ref), Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: spec.Vaults[ref.Vault], Ref: *ref}}
	return d, nil
}

// kindWord is kind as a word before "provider", "" for any kind.
func kindWord(kind string) string {
	if kind == "" {
		return ""
	}
	return kindWords[kind] + " "
}

// noProviderFlags says, by kind, how to name a server site.cue does not
// declare.
var noProviderFlags = map[string]string{"powerdns": "use --url", "cloudflare": "use --token-env and --api-url", "": "declare one in site.cue"}

// providerFields says what --provider takes from site.cue, by kind.
var providerFields = map[string]string{"powerdns": "url, server and api_key", "cloudflare": "token and api_url"}

// readOperator reads the operator's file at config.
func readOperator(config string) (*compiler.OperatorFile, error) {
	src, err := os.ReadFile(config)
	if err != nil {
		return nil, err
	}
	return compiler.ReadOperatorFile(config, src)
}

// providersOf lists, sorted, the providers of kind read declares.
func providersOf(read *compiler.OperatorFile, kind string) []string {
	var names []string
	for n, p := range read.Providers() {
		if p.Kind() == kind {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// serverExample is the disown command for zone, naming the server as
// the operator's file found from here would (its first provider of
// kind), else as fallback does.
func serverExample(kind, zone, fallback string) string {
	if config, err := compiler.FindConfig(configFlag, nil); err == nil {
		if read, err := readOperator(config); err == nil {
			if names := providersOf(read, kind); len(names) > 0 {
				return fmt.Sprintf("site disown %s %s --provider %s", kind, zone, names[0])
			}
		}
	}
	return fmt.Sprintf("site disown %s %s %s", kind, zone, fallback)
}

// disownSuggest is the disown command for a provider of another kind.
func disownSuggest(zone, name string) func(kind string) string {
	return func(kind string) string { return fmt.Sprintf("site disown %s %s --provider %s", kind, zone, name) }
}

// readSecret reads a --provider's credential into run when it is in a
// Vault store (secret not nil), as a secret step of diff would: the
// value goes to run, where the provider's driver asks for it
// (Run.Credential). These commands have no steps to defer, so a store
// that does not answer must not advise --ack GATE-SECRET-UNREACHABLE:
// with the gate counted as given, its message leaves that out, and the
// read still fails.
func readSecret(ctx context.Context, bk *runBackends, run *backends.Run, kind, name string, secret *graph.Step) error {
	if secret == nil {
		return nil
	}
	run.Acked[plan.GateSecretUnreachable] = true
	if _, err := bk.Kinds[plan.PhaseSecrets].Plan(ctx, secret, run); err != nil {
		what := map[string]string{"powerdns": "API key", "cloudflare": "token"}[kind]
		return fmt.Errorf("--provider %s: its %s is in Vault store %s, which could not be read: %w", name, what, secret.Secret.Ref.Vault, err)
	}
	return nil
}
