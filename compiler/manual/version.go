package manual

import "runtime/debug"

// This file is which version of site a binary is, from what the build
// set or recorded, for site version and site --version.

// Version is set when the build set one (-X main.version), else the
// main module's version as go install of a version records it
// (v1.2.3) and go build in a checkout stamps it (a pseudo-version with
// the commit, +dirty for uncommitted changes), else, when the module
// has none ("(devel)"), the commit the build records (devel-REV, with
// +dirty), else "dev": a build that records nothing (-buildvcs=false
// outside a module version).
func Version(set string, info *debug.BuildInfo) string {
	if set != "" {
		return set
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return "dev"
	}
	return "devel-" + rev[:min(len(rev), 12)] + dirty
}
