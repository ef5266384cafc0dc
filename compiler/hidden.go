package compiler

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
)

// maxRounds bounds how often hiddenErrors re-evaluates a failed file.
const maxRounds = 3

// hiddenErrors finds the errors CUE does not report beside others: once
// a struct has one failing field, CUE stops checking it, so a misspelt
// field next to a wrong type would only show after the type is fixed.
// It removes the fields that failed from the syntax tree, evaluates
// again, and keeps what is new, a few rounds at most. Errors at or below
// a removed field are dropped: removing `autostart: "yes"` must not
// report autostart as missing. It mutates f, so the file's value must
// have been used already.
func (e *evaluator) hiddenErrors(f *ast.File, errs []cueError) []cueError {
	seen := map[string]bool{}
	for _, err := range errs {
		seen[errKey(err)] = true
	}
	var removed [][]string
	under := func(path []string) bool {
		for _, r := range removed {
			if len(path) >= len(r) && strings.Join(path[:len(r)], pathSep) == strings.Join(r, pathSep) {
				return true
			}
		}
		return false
	}
	var found []cueError
	for range maxRounds {
		pruned := false
		for _, err := range errs {
			path := err.path
			if len(path) == 0 || under(path) {
				continue
			}
			if prune(f.Decls, nil, path) {
				removed = append(removed, path)
				pruned = true
			}
		}
		if !pruned {
			break
		}
		_, isPlain := plainTenants(f)
		_, errs = e.check(f, isPlain)
		if len(errs) == 0 {
			break
		}
		var fresh []cueError
		for _, err := range errs {
			k := errKey(err)
			if seen[k] || under(err.path) || len(err.path) == 0 || err.path[0] != "tenants" {
				// A list element removed is _, which a list of structs
				// reads as a struct with its required fields missing,
				// reported by CUE at a path relative to the element
				// ("priority"): not the user's error either.
				continue
			}
			seen[k] = true
			fresh = append(fresh, err)
		}
		if len(fresh) == 0 {
			break
		}
		found = append(found, fresh...)
		errs = fresh
	}
	return found
}

func errKey(err cueError) string {
	return strings.Join(err.path, pathSep) + pathSep + err.msg
}

// prune removes every field at target from decls (nested under prefix)
// and replaces a list element at target with _ (removing it would shift
// the indexes of the others). It reports whether it changed anything.
func prune(decls []ast.Decl, prefix, target []string) bool {
	changed := false
	for i, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err != nil || len(prefix) >= len(target) || target[len(prefix)] != name {
				continue
			}
			path := append(prefix[:len(prefix):len(prefix)], name)
			if len(path) == len(target) {
				// An empty embedding keeps the slice's length, so that
				// ranging over decls stays valid.
				decls[i] = &ast.EmbedDecl{Expr: ast.NewStruct()}
				changed = true
				continue
			}
			changed = pruneExpr(d.Value, path, target) || changed
		case *ast.EmbedDecl:
			changed = pruneExpr(d.Expr, prefix, target) || changed
		}
	}
	return changed
}

func pruneExpr(x ast.Expr, path, target []string) bool {
	switch x := x.(type) {
	case *ast.StructLit:
		return prune(x.Elts, path, target)
	case *ast.ListLit:
		if len(path) >= len(target) {
			return false
		}
		i, err := strconv.Atoi(target[len(path)])
		if err != nil || i < 0 || i >= len(x.Elts) {
			return false
		}
		if len(path)+1 == len(target) {
			x.Elts[i] = ast.NewIdent("_")
			return true
		}
		return pruneExpr(x.Elts[i], append(path[:len(path):len(path)], target[len(path)]), target)
	case *ast.BinaryExpr:
		a := pruneExpr(x.X, path, target)
		return pruneExpr(x.Y, path, target) || a
	case *ast.ParenExpr:
		return pruneExpr(x.X, path, target)
	}
	return false
}
