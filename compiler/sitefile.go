package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConfigName is the operator's file: site.cue, package site.
const ConfigName = "site.cue"

// FindConfig says which operator's file a run reads: flag (--config)
// when set; else site.cue in the current directory or the nearest
// parent that has one, as go finds go.mod; else site.cue in the
// directory of the PATH arguments (tenants/ for ./tenants/...) or its
// nearest parent that has one.
func FindConfig(flag string, paths []string) (string, error) {
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return "", fmt.Errorf("--config %s: %w", flag, errors.Unwrap(err))
		}
		return flag, nil
	}
	wd, err := os.Getwd()
	if err == nil {
		if found, ok := findUp(wd); ok {
			return relTo(wd, found), nil
		}
	}
	tried := []string{"the current directory and its parents"}
	for _, p := range paths {
		root, _ := strings.CutSuffix(p, "...")
		root = filepath.Clean(root)
		if fi, err := os.Stat(root); err == nil && !fi.IsDir() || err != nil && filepath.Ext(root) == ".cue" {
			root = filepath.Dir(root) // a file, or one that is missing
		}
		abs, err := filepath.Abs(root)
		if err != nil || abs == wd {
			continue // the current directory was searched first
		}
		if found, ok := findUp(abs); ok {
			return relTo(wd, found), nil
		}
		tried = append(tried, root+" and its parents")
	}
	return "", fmt.Errorf("no %s found in %s: the operator's file declares the providers, hosts and vaults tenants may use; create it (site init NAME --domain D writes one with a first tenant) or name it with --config FILE",
		ConfigName, strings.Join(tried, ", "))
}

// findUp looks for site.cue in dir and its parents.
func findUp(dir string) (string, bool) {
	for {
		p := filepath.Join(dir, ConfigName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// relTo shortens p relative to wd when it lies below it, so messages
// name site.cue or tenants/a/site.cue rather than a long absolute path.
func relTo(wd, p string) string {
	if wd == "" {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
