package manual

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: Version: the version set at build time wins; else go install's
// module version or go build's pseudo-version; else the commit the
// build recorded; "dev" only when the build recorded nothing.
func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		set  string
		info *debug.BuildInfo
		want string
	}{
		{"set at build time", "v1.4.0-3-gabc", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.4.0-3-gabc"},
		{"go install @v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261207153227-d32a8054a439+dirty"},
			Settings: vcs("d32a8054a4390d1c269dea86652438740ec4d997", "true")}, "v0.0.0-20261207153227-d32a8054a439+dirty"},
		{"devel with a commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("d32a8054a4390d1c269dea86652438740ec4d997", "false")}, "devel-d32a8054a439"},
		{"devel with changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("d32a8054a4390d1c269dea86652438740ec4d997", "true")}, "devel-d32a8054a439+dirty"},
		{"nothing recorded", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build info", "", nil, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Version(tc.set, tc.info); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
