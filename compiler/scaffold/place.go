package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
)

// This file is where site init's files go and how they are written:
// the operator's file a tenant written into a directory belongs to, the
// checks that the tenant's file may go there, and writes that never
// replace a file.

// Target is where site init writes the tenant of opts when --out says
// out: out itself, else tenants/NAME.cue beside the operator's file
// found from here (or configFlag), so that init from anywhere in the
// project writes where vet reads (tenants/ here when there is none
// yet). specDir is the directory its spec is vetted in and name the
// file named in messages; "-" (stdout) is vetted as tenants/NAME.cue.
// A --provider-kind init cannot write is refused.
func Target(configFlag string, opts Options, out string) (path, specDir, name string, err error) {
	if opts.Kind != "" && DefaultName[opts.Kind] == "" {
		return "", "", "", fmt.Errorf("--provider-kind %q: use %s or %s", opts.Kind, PowerDNS, Cloudflare)
	}
	if out == "" {
		dir, ok := compiler.TenantsBesideConfig(configFlag)
		if !ok {
			dir = compiler.TenantsDir
		}
		out = filepath.Join(dir, opts.Name+".cue")
	}
	if out == "-" {
		return out, compiler.TenantsDir, opts.Name + ".cue", nil
	}
	return out, filepath.Dir(out), out, nil
}

// FindOperator finds the operator's file for a tenant written into
// dir, as vet would find it. With none, init makes one: here, or at
// configFlag (--config). A --config that does not exist while vet would
// find another is refused: most likely a typo, which would leave the
// real operator's file without the grant.
func FindOperator(configFlag, dir string) (Operator, error) {
	found, findErr := compiler.FindConfig("", []string{dir})
	path := configFlag
	switch {
	case path == "" && findErr != nil:
		return Operator{Path: compiler.ConfigName}, nil
	case path == "":
		path = found
	default:
		if _, err := os.Stat(path); err != nil {
			if findErr == nil {
				return Operator{}, fmt.Errorf("--config %s: %w, and site finds the operator's file %s from here: name that one, or leave --config out", path, err, found)
			}
			return Operator{Path: path}, nil
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return Operator{}, err
	}
	return Operator{Path: path, Src: src, Exists: true}, nil
}

// CheckPlace refuses to write tenant name's file to out (in specDir;
// "-" for stdout) when the file exists, when a spec below specDir
// declares the tenant already, or when op is to be made while specDir
// holds specs it would not grant. rel shows a position to the user.
func CheckPlace(op Operator, out, specDir, name string, rel func(model.Pos) model.Pos) error {
	if out != "-" {
		if _, err := os.Stat(out); err == nil {
			return ErrExists(out) // before "taken": the file is the tenant
		}
	}
	if op.Exists {
		return checkTaken(op.Path, specDir, name, rel)
	}
	if spec := aSpecIn(specDir); spec != "" && out != "-" {
		// The new site.cue would grant only NAME, and vet of the
		// directory would refuse the tenants already there.
		return fmt.Errorf("%s holds tenant specs already (%s) and no site.cue grants them: write the operator's file for them first (or name it with --config FILE), then run site init again", specDir, spec)
	}
	return nil
}

// checkTaken refuses a tenant name that a spec below dir already
// declares: site vet of the directory the scaffold lands in would report
// one tenant in two files. (A domain another tenant holds is refused
// when the grant is vetted with site.cue.) A directory that is missing
// or does not load is not init's to judge; vet will say what is wrong
// with it.
func checkTaken(config, dir, name string, rel func(model.Pos) model.Pos) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	spec, err := compiler.Load(config, []string{filepath.Join(dir, "...")})
	if err != nil {
		return nil
	}
	for _, t := range spec.Tenants {
		if t.Name == name {
			p := rel(t.Pos)
			return fmt.Errorf("tenant %s already exists at %s:%d:%d: choose another NAME", name, p.File, p.Line, p.Col)
		}
	}
	return nil
}

// aSpecIn returns a .cue file below dir, "" when there is none (or no
// dir).
func aSpecIn(dir string) string {
	var found string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".cue" {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// AppendFile adds src to the end of the operator's file, which vet has
// already checked with it.
func AppendFile(path string, src []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(append([]byte("\n"), src...)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ErrExists says site init will not replace path.
func ErrExists(path string) error {
	return fmt.Errorf("%s exists; site init never overwrites a file: choose another --out, or remove it", path)
}

// WriteNew writes src to path, creating its directory, and refuses to
// replace an existing file.
func WriteNew(path string, src []byte) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return ErrExists(path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
