package compiler

import (
	"fmt"
	"strconv"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
)

// The memory budget is watched from outside (budget.go), by sampling
// the heap: it stops a spec whose evaluation grows by many allocations,
// but not one builtin call that allocates all at once. CUE's
// strconv.FormatFloat is such a call: Go allocates its result for the
// precision asked up front, so a precision of 10^9 took 1 GB in one
// allocation and 1 GB more for the string (2.2 GB against a 1 GiB
// budget) before the watchdog could look. No float needs more digits
// than maxFloatDigits, so the precision must be written as a number no
// larger, where the call is written; a reference to the builtin that is
// not such a call (a field holding it, called elsewhere) is refused, as
// its arguments could be anything.

// maxFloatDigits bounds FormatFloat's precision: a float64's exact
// decimal expansion has at most 767 significant digits, and 1074 after
// the point.
const maxFloatDigits = 1100

// checkBuiltins returns a diagnostic at the first use of
// strconv.FormatFloat in f that is not a call with a literal precision
// from -1 to maxFloatDigits.
func checkBuiltins(path string, f *ast.File) *Diagnostic {
	names := map[string]bool{} // what f calls package strconv
	for spec := range f.ImportSpecs() {
		if p, err := strconv.Unquote(spec.Path.Value); err != nil || p != "strconv" {
			continue
		}
		if spec.Name != nil {
			names[spec.Name.Name] = true
		} else {
			names["strconv"] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	isFormatFloat := func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		label, _, _ := ast.LabelName(sel.Sel)
		return ok && names[x.Name] && label == "FormatFloat"
	}
	called := map[ast.Node]bool{} // the selectors of calls with a fine precision
	var bad ast.Node
	ast.Walk(f, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && isFormatFloat(call.Fun) {
			if len(call.Args) == 4 && smallPrecision(call.Args[2]) {
				called[call.Fun] = true
			} else if len(call.Args) == 4 {
				bad = call.Args[2]
				return false
			}
		}
		if isFormatFloat(n) && !called[n] {
			bad = n
		}
		return true
	}, nil)
	if bad == nil {
		return nil
	}
	p := bad.Pos()
	return &Diagnostic{
		Pos: model.Pos{File: path, Line: max(p.Line(), 1), Col: max(p.Column(), 1)},
		Msg: fmt.Sprintf("strconv.FormatFloat takes its precision as a number from -1 to %d written in the call: one call allocates as many bytes as the precision at once, more than any budget can stop, and no float has more digits; write the precision there as a number", maxFloatDigits),
	}
}

// smallPrecision reports whether x is an integer literal from -1 to
// maxFloatDigits.
func smallPrecision(x ast.Expr) bool {
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		lit, ok := u.X.(*ast.BasicLit)
		return ok && lit.Kind == token.INT && lit.Value == "1"
	}
	lit, ok := x.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return false
	}
	n, err := strconv.Atoi(lit.Value)
	return err == nil && n >= 0 && n <= maxFloatDigits
}
