// Package schema embeds the CUE definitions of site's tenant specs, so
// that the site binary checks specs without any file beside it. The same
// .cue files are valid for the cue CLI: cue vet -c schema/*.cue FILE.
package schema

import "embed"

// FS holds every schema file (*.cue) at its top level.
//
//go:embed *.cue
var FS embed.FS
