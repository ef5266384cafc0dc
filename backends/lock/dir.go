package lock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/site-tools/site/compiler/hint"
)

// A lock directory holds one file per tenant, NAME.lock. It is the
// operator's (site.cue locks: dir, or the user's state directory by
// default), never in the checkout: everything under tenants/ arrives
// with a pull request, dotfiles and symbolic links included, and a lock
// file there let a pull request plant what the runner reads and
// removes.

// DefaultDir is the lock directory when site.cue names no lock store:
// $XDG_STATE_HOME/site/locks, else ~/.local/state/site/locks (the XDG
// base directory specification's state directory).
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "site", "locks"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", fmt.Errorf("no directory for apply locks: XDG_STATE_HOME and HOME are unset; set one, or name a lock store in site.cue (locks: dir: \"/var/lib/site/locks\")")
	}
	return filepath.Join(home, ".local", "state", "site", "locks"), nil
}

// tenantName is what a lock file's name may be made of: a tenant's
// name as site.cue grants it.
var tenantName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// DirFile is tenant's lock file in dir, once dir is usable: absolute,
// at or below none of outside (the directory of site.cue and those of
// the tenants' specs, which a pull request writes), and created (mode
// 0700) when missing.
func DirFile(dir, tenant string, outside []string) (File, error) {
	if !tenantName.MatchString(tenant) {
		return File{}, fmt.Errorf("tenant name %q cannot name a lock file", tenant)
	}
	if !filepath.IsAbs(dir) {
		return File{}, fmt.Errorf("lock directory %s is not an absolute path: name it absolute in site.cue (locks: dir)", dir)
	}
	real := resolved(dir)
	for _, o := range outside {
		if o == "" {
			continue
		}
		if o := resolved(o); within(real, o) {
			h := hint.Hint{Kind: hint.CheckOperatorFile, Spec: "locks: dir (name a directory outside the repository, or leave locks out for the user's state directory)"}
			return File{}, hint.Errorf(h, "lock directory %s is inside %s, which holds the specs: a pull request could plant lock files there", dir, o)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return File{}, fmt.Errorf("creating the lock directory: %w", err)
	}
	return File{Path: filepath.Join(dir, tenant+".lock")}, nil
}

// resolved is p absolute, with the symbolic links of its longest
// existing ancestor resolved, so that two spellings of one directory
// compare equal.
func resolved(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for cur := p; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(cur)
		if !errors.Is(err, fs.ErrNotExist) || parent == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
