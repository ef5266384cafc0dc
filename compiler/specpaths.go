package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/site-tools/site/compiler/model"
)

// This file says which files a run reads when the user names none:
// the tenants directory beside the operator's file, found as go finds
// go.mod. Every command that loads specs asks it, so that vet, diff,
// apply, graph, leftovers and init agree on where tenant files live.

// TenantsDir is the directory tenant files live in, beside site.cue.
const TenantsDir = "tenants"

// DefaultPaths is the PATH a run reads when none is given.
var DefaultPaths = []string{"./" + TenantsDir + "/..."}

// SpecInput is what vet, diff, apply and graph read: the operator's
// file (configFlag, --config, when set) and the tenant files at the
// PATH arguments args (see SpecPaths).
func SpecInput(configFlag string, args []string) (string, []string, error) {
	paths, err := SpecPaths(configFlag, args)
	if err != nil {
		return "", nil, err
	}
	config, err := FindConfig(configFlag, paths)
	return config, paths, err
}

// SpecPaths is the PATH arguments, or ./tenants/... when none are
// given. A missing ./tenants then gets its own message, since the user
// named no path to check.
func SpecPaths(configFlag string, args []string) ([]string, error) {
	for i, a := range args {
		if a == "" {
			// Most likely an unset shell variable; reading "." instead
			// would vet or converge something nobody named.
			return nil, fmt.Errorf("PATH %d is empty (an unset variable?): name a .cue file, a directory, or dir/...", i+1)
		}
	}
	if len(args) > 0 {
		return args, nil
	}
	if fi, err := os.Stat(TenantsDir); err == nil && fi.IsDir() {
		return DefaultPaths, nil
	}
	if dir, ok := projectTenants(configFlag); ok {
		return []string{dir}, nil
	}
	return nil, fmt.Errorf("no PATH given and no %s directory here, nor beside a site.cue above: name the spec files (e.g. site vet tenants/sjc.cue), or run site inside the project (site init NAME --domain D starts one)", TenantsDir)
}

// projectTenants is the default PATH from a directory below the top of
// the project (tenants/ itself, say): the tenants directory beside the
// operator's file found from here, and everything below it, as go finds
// go.mod from a package's directory.
func projectTenants(configFlag string) (string, bool) {
	dir, ok := TenantsBesideConfig(configFlag)
	if !ok {
		return "", false
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	return dir + string(filepath.Separator) + "...", true // "./...", not Join's "..."
}

// TenantsBesideConfig is the tenants directory beside the operator's
// file found from here (relative to here when it can be); false when
// there is no operator's file.
func TenantsBesideConfig(configFlag string) (string, bool) {
	config, err := FindConfig(configFlag, nil)
	if err != nil {
		return "", false
	}
	dir := filepath.Join(filepath.Dir(config), TenantsDir)
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(dir) {
		if rel, err := filepath.Rel(wd, dir); err == nil {
			dir = rel
		}
	}
	return dir, true
}

// LoadSpecs loads the operator's file and the specs at paths
// (./tenants/... when none), and returns the model and the operator's
// file's path. An invalid spec is an error holding Diagnostics.
func LoadSpecs(configFlag string, paths []string, o Options) (*model.Spec, string, error) {
	config, paths, err := SpecInput(configFlag, paths)
	if err != nil {
		return nil, "", err
	}
	spec, err := LoadWith(config, paths, o)
	return spec, config, err
}

// LoadForLeftovers loads the specs as diff does. With no PATH and no
// tenant file under ./tenants it loads site.cue alone (alone is then
// true), where diff refuses to: every tenant removed is when what site
// marked is most left over. ./tenants may have gone with its last file
// (git keeps no empty directory); then only site.cue in the current
// directory says this is the checkout, not a directory below it, whose
// missing ./tenants says nothing. load is LoadSpecs, so the caller's
// errors read as its other commands'.
func LoadForLeftovers(configFlag string, args []string, o Options, load func([]string, Options) (*model.Spec, string, error)) (spec *model.Spec, config string, alone bool, err error) {
	if len(args) > 0 {
		spec, config, err = load(args, o)
		return spec, config, false, err
	}
	empty, gone := tenantDirState()
	if !empty {
		spec, config, err = load(args, o)
		return spec, config, false, err
	}
	config, err = FindConfig(configFlag, nil)
	if err != nil {
		return nil, "", false, err
	}
	if gone && !inCurrentDir(config) {
		spec, config, err = load(args, o) // says ./tenants is missing
		return spec, config, false, err
	}
	spec, err = LoadWith(config, nil, o)
	if err != nil {
		return nil, "", false, fmt.Errorf("no tenant file under ./%s, so site.cue alone was loaded: %w", TenantsDir, err)
	}
	return spec, config, true, nil
}

// tenantDirState says whether ./tenants holds no .cue file at any
// depth (empty), and whether that is because it is not there (gone).
// A .cue file the load would refuse (a link) counts as one: the load
// then says why.
func tenantDirState() (empty, gone bool) {
	fi, err := os.Stat(TenantsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, true
	}
	if err != nil || !fi.IsDir() {
		return false, false // the load says what is wrong with it
	}
	found := false
	walkErr := filepath.WalkDir(TenantsDir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(d.Name()) == ".cue" {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	// A directory that cannot be read may hold tenant files: the load
	// says so rather than this run judging every zone undeclared.
	return !found && walkErr == nil, false
}

// inCurrentDir reports whether file is in the current directory.
func inCurrentDir(file string) bool {
	abs, err := filepath.Abs(file)
	wd, werr := os.Getwd()
	return err == nil && werr == nil && filepath.Dir(abs) == wd
}

// ZoneClaims lists the zones that the tenant files beside config
// (tenants/... in site.cue's directory, as diff loads them from there)
// declare as zone on provider: those whose next apply takes back what
// site disown unmarks. An error means the check could not be made, not
// that no one claims the zone; invalid specs are an error holding
// Diagnostics.
func ZoneClaims(config, zone, provider string) ([]*model.Zone, error) {
	dir := filepath.Join(filepath.Dir(config), TenantsDir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no %s directory beside %s", TenantsDir, config)
	}
	spec, err := Load(config, []string{filepath.Join(dir, "...")})
	if err != nil {
		return nil, err
	}
	var claims []*model.Zone
	for _, t := range spec.Tenants {
		for _, z := range t.Zones {
			if z.Name == zone && slices.ContainsFunc(z.Served(), func(p model.Provider) bool { return p.Name == provider }) {
				claims = append(claims, z)
			}
		}
	}
	return claims, nil
}
