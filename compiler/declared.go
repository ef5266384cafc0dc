package compiler

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

// Declared is a provider a command names by --provider NAME: as the
// operator's file declares it, with its credential as that file gives
// it. A credential in a Vault store comes with Secret, the step that
// reads it as diff and apply read it; nil for one from the environment.
type Declared struct {
	Provider model.Provider
	Secret   *graph.Step
	Config   string // the operator's file
	File     *OperatorFile
}

// noProviderFlags says, by kind, how to name a server site.cue does not
// declare.
var noProviderFlags = map[string]string{"powerdns": "use --url", "cloudflare": "use --token-env and --api-url", "": "declare one in site.cue"}

// DeclaredProvider resolves --provider name for export, disown and
// leftovers: the provider of kind (powerdns, cloudflare; any when
// empty) that the operator's file (configFlag, --config, or found as
// for vet) declares as name. suggest is the command to run for a
// provider of another kind.
func DeclaredProvider(configFlag, kind, name string, suggest func(kind string) string) (Declared, error) {
	config, err := FindConfig(configFlag, nil)
	if err != nil {
		return Declared{}, fmt.Errorf("--provider %s: %w", name, err)
	}
	read, err := ReadOperatorAt(config)
	if err != nil {
		return Declared{}, err
	}
	p, ok := read.Providers()[name]
	switch {
	case !ok:
		names := read.ProvidersOf(kind)
		msg := fmt.Sprintf("--provider %s: %s declares no provider %s", name, config, name)
		if near := spelling.Nearest(name, names); near != "" {
			msg += ": did you mean " + near + "?"
		}
		if len(names) == 0 {
			return Declared{}, fmt.Errorf("%s (and no %sprovider at all: %s)", msg, kindWord(kind), noProviderFlags[kind])
		}
		return Declared{}, fmt.Errorf("%s (its %sproviders: %s)", msg, kindWord(kind), strings.Join(names, ", "))
	case kind != "" && p.Kind() != kind:
		return Declared{}, fmt.Errorf("--provider %s: provider %s in %s is a %s provider: %s",
			name, name, config, kindName(p.Kind()), suggest(p.Kind()))
	}
	p.Name = name
	d := Declared{Provider: p, Config: config, File: read}
	ref := p.Credential().Vault
	if ref == nil {
		return d, nil
	}
	// The stores are in the model a load builds; loading no tenant file
	// builds that of site.cue alone.
	spec, err := Load(config, nil)
	if err != nil {
		return Declared{}, err
	}
	d.Secret = &graph.Step{ID: graph.SecretStepID(*ref), Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: spec.Vaults[ref.Vault], Ref: *ref}}
	return d, nil
}

// kindWord is kind as a word before "provider", "" for any kind.
func kindWord(kind string) string {
	if kind == "" {
		return ""
	}
	return kindName(kind) + " "
}

// kindName names a provider kind in messages as its rules do (Name,
// the provider's own data), else as site.cue spells it.
func kindName(kind string) string {
	if r := ruleSet()[kind]; r != nil && r.Name != "" {
		return r.Name
	}
	return kind
}

// ReadOperatorAt reads the operator's file at config.
func ReadOperatorAt(config string) (*OperatorFile, error) {
	src, err := os.ReadFile(config)
	if err != nil {
		return nil, err
	}
	return ReadOperatorFile(config, src)
}

// ProvidersOf lists, sorted, the providers of kind o declares.
func (o *OperatorFile) ProvidersOf(kind string) []string {
	var names []string
	for n, p := range o.Providers() {
		if p.Kind() == kind {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// DisownExample is the site disown command for zone, naming the server
// as the operator's file found from here (or configFlag) would: its
// first provider of kind, else as fallback (the server flags) does.
func DisownExample(configFlag, kind, zone, fallback string) string {
	if config, err := FindConfig(configFlag, nil); err == nil {
		if read, err := ReadOperatorAt(config); err == nil {
			if names := read.ProvidersOf(kind); len(names) > 0 {
				return fmt.Sprintf("site disown %s %s --provider %s", kind, zone, names[0])
			}
		}
	}
	return fmt.Sprintf("site disown %s %s %s", kind, zone, fallback)
}
