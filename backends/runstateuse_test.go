package backends

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const runstatePath = "github.com/site-tools/site/backends/internal/runstate"

// runstateUse is which of runstate's names each package's non-test code
// may use: one narrow capability per job, so a DNS driver reads a
// credential but can neither record a secret nor interrupt a run, and
// only the engine creates a run's state (Start). A package missing here
// may not import runstate at all.
var runstateUse = map[string][]string{
	".":          {"Register", "State", "ErrSecretNotRead", "ErrNoState"}, // where a Run keeps its State
	"engine":     {"Start", "Interrupts"},                                 // alone creates a run's state; Ctrl-C interrupts it
	"powerdns":   {"Credentials", "Memos"},                                // API key; zone lists read once
	"cloudflare": {"Credentials"},                                         // API token
	"vault":      {"Credentials", "Secrets"},                              // login; records what it read
	"dnsfaults":  {"Interrupts"},                                          // test faults: Ctrl-C mid-apply
}

// TestDriversUseOnlyTheirRunState parses every non-test file under
// backends/ and fails on a use of runstate beyond the package's row in
// runstateUse (a type assertion to *runstate.State included, since that
// names State).
func TestDriversUseOnlyTheirRunState(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(path, filepath.Join("internal", "runstate")) {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := importName(f)
		if name == "" {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		allowed, listed := runstateUse[pkg]
		if !listed {
			t.Errorf("%s imports runstate, but package %s has no row in runstateUse: give it the narrow capability it needs", path, pkg)
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, isIdent := sel.X.(*ast.Ident); isIdent && x.Name == name {
				seen[pkg+"."+sel.Sel.Name] = true
				if !slices.Contains(allowed, sel.Sel.Name) {
					t.Errorf("%s: package %s uses runstate.%s; it may use only %v", fset.Position(sel.Pos()), pkg, sel.Sel.Name, allowed)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The table is not stale: each capability it grants is used, so a
	// driver that stops needing one loses it.
	for pkg, names := range runstateUse {
		for _, n := range names {
			if !seen[pkg+"."+n] {
				t.Errorf("runstateUse grants %s runstate.%s, which it no longer uses: drop it from the table", pkg, n)
			}
		}
	}
}

// importName is the name f calls runstate by, or "" if f does not import it.
func importName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == runstatePath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "runstate"
		}
	}
	return ""
}
