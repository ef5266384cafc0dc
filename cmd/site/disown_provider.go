package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// declaredProvider is a provider --provider NAME names, as the
// operator's file declares it (see compiler.Declared).
type declaredProvider struct {
	p      model.Provider
	secret *graph.Step
	config string // the operator's file
	read   *compiler.OperatorFile
}

// byProvider resolves --provider NAME for export, disown and leftovers
// (compiler.DeclaredProvider). where lists the flags --provider stands
// for, which must not be given beside it; suggest is the command to run
// for a provider of another kind.
func byProvider(cmd *cobra.Command, kind, name string, suggest func(kind string) string, where ...string) (declaredProvider, error) {
	for _, f := range where {
		if cmd.Flags().Changed(f) {
			return declaredProvider{}, fmt.Errorf("--provider %s and --%s both say where the server is: give one (--provider takes %s from site.cue)", name, f, providerFields[kind])
		}
	}
	d, err := compiler.DeclaredProvider(configFlag, kind, name, suggest)
	if err != nil {
		return declaredProvider{}, err
	}
	return declaredProvider{p: d.Provider, secret: d.Secret, config: d.Config, read: d.File}, nil
}

// providerFields says what --provider takes from site.cue, by kind.
var providerFields = map[string]string{"powerdns": "url, server and api_key", "cloudflare": "token and api_url"}

// disownSuggest is the disown command for a provider of another kind.
func disownSuggest(zone, name string) func(kind string) string {
	return func(kind string) string { return fmt.Sprintf("site disown %s %s --provider %s", kind, zone, name) }
}
