package main

import (
	"embed"

	"github.com/site-tools/site/compiler/manual"
)

// Help holds this package's help topics (help/*.md): the ones about the
// command itself, read by site help through compiler/manual.
//
//go:embed help/*.md
var Help embed.FS

func init() { manual.Register("cmd/site", Help) }
