package compiler

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// expand turns command-line paths into the .cue files they name: a file
// is itself, a directory is the .cue files directly in it, and "dir/..."
// is every .cue file below dir (skipping directories whose name starts
// with "." or "_", testdata and cue.mod, as the go and cue tools do).
// A missing path, or a directory without .cue files, is a diagnostic:
// vetting nothing must never pass silently. So is a .cue file that is
// not a regular file, such as a symbolic link (linkError). It is one
// function because each kind of path gets its own message, and the
// cases read best side by side.
func expand(paths []string) ([]string, Diagnostics) {
	var files []string
	var diags Diagnostics
	seen := map[string]bool{}
	add := func(f string) {
		// One file named two ways (tenants/a.cue, /abs/tenants/a.cue)
		// is read once, not reported as a tenant declared twice.
		key := f
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, f)
		}
	}
	for _, arg := range paths {
		root, recursive := strings.CutSuffix(arg, "...")
		if recursive {
			root = strings.TrimSuffix(root, "/")
			if root == "" {
				root = "."
			}
		}
		root = filepath.Clean(root)
		fail := func(msg string) {
			diags = append(diags, Diagnostic{Pos: model.Pos{File: arg}, Msg: msg})
		}
		failAt := func(path string, mode fs.FileMode) {
			diags = append(diags, Diagnostic{Pos: model.Pos{File: path}, Msg: linkError(mode)})
		}
		info, err := os.Stat(root)
		if err != nil {
			if os.IsNotExist(err) {
				fail("no such file or directory; check the path")
			} else {
				fail(err.Error())
			}
			continue
		}
		switch {
		case !info.IsDir() && recursive:
			fail("is a file; \"/...\" needs a directory")
		case !info.IsDir():
			if filepath.Ext(root) != ".cue" {
				fail("not a .cue file; site reads tenant specs written in CUE")
				continue
			}
			if l, err := os.Lstat(root); err == nil && !l.Mode().IsRegular() {
				fail(linkError(l.Mode()))
				continue
			}
			add(root)
		case recursive:
			n, err := walkCUE(root, add, failAt)
			if err != nil {
				fail(err.Error())
			} else if n == 0 {
				fail("no .cue files in this directory or below it")
			}
		default:
			n, err := listCUE(root, add, failAt)
			if err != nil {
				fail(err.Error())
				continue
			}
			if n == 0 {
				fail("no .cue files in this directory; use \"" + root + string(filepath.Separator) + "...\" to include subdirectories")
			}
		}
	}
	sort.Strings(files)
	return files, diags
}

// walkCUE adds every .cue file in root and below it, skipping the
// directories skipDir names, and reports each that is no regular file
// (failAt). n counts both.
func walkCUE(root string, add func(string), failAt func(string, fs.FileMode)) (n int, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(p) == ".cue" {
			if d.Type().IsRegular() {
				add(p)
			} else {
				failAt(p, d.Type())
			}
			n++
		}
		return nil
	})
	return n, err
}

// listCUE adds every .cue file in root itself, not below it, and
// reports each that is no regular file (failAt). n counts both.
func listCUE(root string, add func(string), failAt func(string, fs.FileMode)) (n int, err error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		switch {
		case filepath.Ext(p) != ".cue" || e.IsDir():
			continue
		case e.Type().IsRegular():
			add(p)
		default:
			failAt(p, e.Type())
		}
		n++
	}
	return n, nil
}

// linkError says why a tenant file of the given mode (a symbolic link,
// a device, a pipe) is not read. A tenant's pull request can add a link
// to any file of the machine that runs the check (a token, a .env), and
// what site reports about a file it read quotes its words.
func linkError(mode fs.FileMode) string {
	what := "not a regular file"
	if mode&fs.ModeSymlink != 0 {
		what = "a symbolic link"
	}
	return what + "; site reads a tenant file only as a regular file, never through a link, which a pull request could point at a file of the machine that runs site: replace it with the file itself"
}

func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "cue.mod"
}

// withSiblings adds to files the .cue files in the directory of each:
// the tenants beside the ones being converged, loaded for the checks
// between tenants.
func withSiblings(files []string) []string {
	out := slices.Clone(files)
	seen := map[string]bool{}
	for _, f := range files {
		seen[absPath(f)] = true
	}
	dirs := map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f)
		if dirs[dir] {
			continue
		}
		dirs[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // the named file is read, and its error reported, on its own
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if filepath.Ext(p) == ".cue" && e.Type().IsRegular() && !seen[absPath(p)] {
				seen[absPath(p)] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// withoutFile drops this run's operator's file from a list of tenant
// files (./... from the top of the repository names it too); any other
// package-site file left among them is an error (evaluator.source).
func withoutFile(files []string, config string) []string {
	c := absPath(config)
	return slices.DeleteFunc(slices.Clone(files), func(f string) bool { return absPath(f) == c })
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
