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
// its arguments could be anything. The regexp builtins that multiply
// what they are given are bounded where they are called
// (regexpguard.go), and refused elsewhere for the same reason.

// maxFloatDigits bounds FormatFloat's precision: a float64's exact
// decimal expansion has at most 767 significant digits, and 1074 after
// the point.
const maxFloatDigits = 1100

// checkBuiltins returns a diagnostic at the first use in f of
// strconv.FormatFloat that is not a call with a literal precision from
// -1 to maxFloatDigits, or of a regexp builtin that multiplies what it
// is given (growingRegexp) that is not a call: guardRegexp bounds those
// calls' arguments, which it cannot do for a builtin held in a field.
func checkBuiltins(path string, f *ast.File) *Diagnostic {
	strconvNames, regexpNames := importNames(f, "strconv"), importNames(f, "regexp")
	if len(strconvNames) == 0 && len(regexpNames) == 0 {
		return nil
	}
	isFormatFloat := func(n ast.Node) bool { return selected(strconvNames, n) == "FormatFloat" }
	called := map[ast.Node]bool{} // the selectors of calls that pass
	var bad ast.Node
	var msg string
	ast.Walk(f, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && isFormatFloat(call.Fun) {
			if len(call.Args) == 4 && smallPrecision(call.Args[2]) {
				called[call.Fun] = true
			} else if len(call.Args) == 4 {
				bad, msg = call.Args[2], formatFloatMsg
				return false
			}
		}
		if call, ok := n.(*ast.CallExpr); ok && growingRegexp[selected(regexpNames, call.Fun)] != nil {
			called[call.Fun] = true
		}
		switch {
		case isFormatFloat(n) && !called[n]:
			bad, msg = n, formatFloatMsg
		case growingRegexp[selected(regexpNames, n)] != nil && !called[n]:
			name := selected(regexpNames, n)
			bad, msg = n, fmt.Sprintf("regexp.%[1]s can build far more than it is given in one step, which no budget can stop; call it where its value is used, regexp.%[1]s(...), where site bounds what it is fed, not through a field", name)
		}
		return true
	}, nil)
	if bad == nil {
		return nil
	}
	p := bad.Pos()
	return &Diagnostic{Pos: model.Pos{File: path, Line: max(p.Line(), 1), Col: max(p.Column(), 1)}, Msg: msg}
}

var formatFloatMsg = fmt.Sprintf("strconv.FormatFloat takes its precision as a number from -1 to %d written in the call: one call allocates as many bytes as the precision at once, more than any budget can stop, and no float has more digits; write the precision there as a number", maxFloatDigits)

// importNames returns what f calls the standard package path.
func importNames(f *ast.File, path string) map[string]bool {
	names := map[string]bool{}
	for spec := range f.ImportSpecs() {
		if p, err := strconv.Unquote(spec.Path.Value); err != nil || p != path {
			continue
		}
		if spec.Name != nil {
			names[spec.Name.Name] = true
		} else {
			names[path] = true
		}
	}
	return names
}

// selected returns the name n selects from a package f calls one of
// names (X.Name), or "".
func selected(names map[string]bool, n ast.Node) string {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || !names[x.Name] {
		return ""
	}
	label, _, _ := ast.LabelName(sel.Sel)
	return label
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
