package compiler

import (
	"os"
	"path/filepath"
)

// ConfigOutside is the operator's file site would read beside paths
// (with no --config) when it lies outside the current directory's tree
// and its parents have none, as shown to a person (with its real path
// when a link leads elsewhere); "" when the file is the current
// directory's or a parent's, lies in the tree, or none is found
// (loading then says where it looked). Without --config, site reads the
// site.cue of the current directory or its parents, else the one beside
// the paths; paths that come from a file anyone may write (a saved
// plan) must not choose it: /tmp/evil/tenants/x.cue, or a link out of
// the tree, would have site read /tmp/evil/site.cue.
func ConfigOutside(paths []string) (string, error) {
	if _, err := FindConfig("", nil); err == nil {
		return "", nil // the current directory's or a parent's, whatever the paths
	}
	config, err := FindConfig("", paths)
	if err != nil {
		return "", nil // none found: loading says so, naming where it looked
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	abs := config
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, config)
	}
	realWD, err1 := filepath.EvalSymlinks(wd)
	real, err2 := filepath.EvalSymlinks(abs)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(realWD, real); err == nil && filepath.IsLocal(rel) {
			return "", nil
		}
	}
	shown := config
	if err2 == nil && real != abs {
		shown += " (really " + real + ")"
	}
	return shown, nil
}
