package compiler

import (
	"fmt"
	"strings"
)

// legacyFields finds what a tenant file may no longer say: before
// site.cue, a tenant named its own provider endpoints, credentials and
// secret store, which let a tenant's pull request send the runner's
// credentials wherever it liked. Each such field is reported where it
// is written, saying where it lives now. (A host written as a libvirt
// URI fails the schema's name pattern and is explained in fromCUE.)
func legacyFields(pos *positions) Diagnostics {
	var diags Diagnostics
	report := func(path []string, format string, args ...any) {
		diags = append(diags, Diagnostic{Pos: pos.pos(path...), Path: cuePath(path...), Msg: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	for key := range pos.at {
		p := strings.Split(key, pathSep)
		switch {
		case len(p) == 3 && p[0] == "tenants" && p[2] == "secrets":
			report(p, "a tenant file names no secret store: Vault addresses, mounts, tokens and paths live in the operator's site.cue (vaults: NAME: {addrs, token}, and credentials {vault: {vault: NAME, path, key}} on its providers); remove secrets")
		case len(p) == 7 && p[0] == "tenants" && p[2] == "dns" && p[3] == "zones" && p[5] == "provider" && !isIndex(p[6]) && !seen[strings.Join(p[:6], pathSep)]:
			seen[strings.Join(p[:6], pathSep)] = true
			report(p[:6], "a zone names its provider, provider: \"NAME\": the %s URL and credential live in the operator's site.cue (providers: NAME: %s: {...}), which also grants the name to this tenant", p[6], p[6])
		}
	}
	return diags
}
