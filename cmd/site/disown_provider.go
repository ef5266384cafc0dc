package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

// kindWords names a provider kind in messages.
var kindWords = map[string]string{"powerdns": "PowerDNS", "cloudflare": "Cloudflare"}

// byProvider resolves disown's --provider NAME: the provider of kind
// (powerdns, cloudflare) that the operator's file (--config, or found as
// for vet) declares as NAME, with its credential as that file gives it.
// A credential in a Vault store comes with the step that reads it, as
// diff and apply read it; nil for one from the environment. where lists
// the flags --provider stands for, which must not be given beside it.
func byProvider(cmd *cobra.Command, kind, name, zone string, where ...string) (model.Provider, *graph.Step, error) {
	for _, f := range where {
		if cmd.Flags().Changed(f) {
			return model.Provider{}, nil, fmt.Errorf("--provider %s and --%s both say where the server is: give one (--provider takes %s from site.cue)", name, f, providerFields[kind])
		}
	}
	config, err := compiler.FindConfig(configFlag, nil)
	if err != nil {
		return model.Provider{}, nil, fmt.Errorf("--provider %s: %w", name, err)
	}
	read, err := readOperator(config)
	if err != nil {
		return model.Provider{}, nil, err
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
			return model.Provider{}, nil, fmt.Errorf("%s (and no %s provider at all: use --url)", msg, kindWords[kind])
		}
		return model.Provider{}, nil, fmt.Errorf("%s (its %s providers: %s)", msg, kindWords[kind], strings.Join(names, ", "))
	case p.Kind() != kind:
		return model.Provider{}, nil, fmt.Errorf("--provider %s: provider %s in %s is a %s provider: site disown %s %s --provider %s",
			name, name, config, kindWords[p.Kind()], p.Kind(), zone, name)
	}
	p.Name = name
	ref := p.Credential().Vault
	if ref == nil {
		return p, nil, nil
	}
	// The stores are in the model a load builds; loading no tenant file
	// builds that of site.cue alone.
	spec, err := compiler.Load(config, nil)
	if err != nil {
		return model.Provider{}, nil, err
	}
	return p, &graph.Step{ID: graph.SecretStepID(*ref), Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: spec.Vaults[ref.Vault], Ref: *ref}}, nil
}

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
