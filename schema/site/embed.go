// Package site embeds the CUE definitions of the operator's file,
// site.cue (package site), beside the tenant schema of package schema.
// It is a package of its own because the cue CLI vets one CUE package
// at a time: cue vet -c schema/site/*.cue site.cue
package site

import "embed"

// FS holds every schema file (*.cue) of package site at its top level.
//
//go:embed *.cue
var FS embed.FS
