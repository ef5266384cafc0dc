package compiler

import (
	"fmt"

	"cuelang.org/go/cue/ast"

	"github.com/site-tools/site/compiler/model"
)

// Limits on the syntax of one spec, checked before CUE sees it. CUE
// compiles and evaluates expressions by recursion: a sum of a million
// terms parses (the parser limits only bracket nesting, to 10,000) but
// overflows the Go stack when compiled, a fatal error no recover can
// catch. Real specs nest about a dozen levels and are well under a MB.
const (
	// maxDepth bounds the nesting of the syntax tree: a struct level is
	// two (field and struct), each operator of a chain one.
	maxDepth = 1000
	// maxFileSize bounds one spec file, so that a huge file is refused
	// before it is read, not when it has filled the memory budget.
	maxFileSize = 64 << 20
)

// checkDepth returns a diagnostic at the first node of f nested deeper
// than maxDepth. The walk itself never descends below maxDepth.
func checkDepth(path string, f *ast.File) *Diagnostic {
	var deep ast.Node
	depth := 0
	ast.Walk(f, func(n ast.Node) bool {
		if deep != nil {
			return false
		}
		if depth == maxDepth {
			deep = n
			return false
		}
		depth++
		return true
	}, func(ast.Node) { depth-- })
	if deep == nil {
		return nil
	}
	p := deep.Pos()
	return &Diagnostic{
		Pos: model.Pos{File: path, Line: max(p.Line(), 1), Col: max(p.Column(), 1)},
		Msg: fmt.Sprintf("nested more than %d levels deep (structs, lists, or a long chain of operators); split it into named fields", maxDepth),
	}
}
