package main

import (
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
)

// The compiler checks each zone against the record rules its providers
// declare (compiler/rules); the provider table holds them. They are
// given once, before any command loads a spec (export's and init's
// checks of what they write included), and are constant in this binary.
func init() { compiler.UseRules(providers.RecordRules()) }
